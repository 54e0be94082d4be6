"""Requests the relay reads on an inspected host reach the host's collector as OCSF http_activity.

A real toolcage-relay (copied into an install of its own whose share/toolcage/fleet.json names a
collector: a TCP listener here reading RFC 6587 octet-counted syslog), inspecting a local
`openssl s_server` with a credential bound to it and a rule refusing POST. curl sends one GET
(forwarded, the credential put in by the relay) and one POST (refused by the rule), each with the
placeholder and a query value, and one GET with the placeholder in its path (refused). The
collector gets one http_activity event for each, valid against the OCSF 1.8.0 definitions in
ocsf/, naming the rule and the binding by host and kind; no event, and no line of the relay's
log, holds the secret, the placeholder or the query value.

Needs openssl, curl and python3-jsonschema; runs as any user.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ocsf_schema  # noqa: E402

SCHEMAS = os.path.join(HERE, "ocsf", "v1.8.0")
RELAY_BIN = os.environ.get("TOOLCAGE_RELAY_BIN", "")
SECRET = "s3cret-value-the-server-alone-may-see-7f3a"
PLACEHOLDER = "toolcage-placeholder-api-token-0123456789abcdef"
QUERY_VALUE = "query-value-9c1d"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Collector:
    """A syslog collector over TCP with octet counting (RFC 6587): the messages it got."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.messages, self.lock = [], threading.Lock()
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn):
        buf = b""
        with conn:
            while True:
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
                while b" " in buf:
                    length, rest = buf.split(b" ", 1)
                    n = int(length)
                    if len(rest) < n:
                        break
                    with self.lock:
                        self.messages.append(rest[:n].decode("utf-8", "replace"))
                    buf = rest[n:]

    def wait_for(self, pred, n, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                got = [m for m in self.messages if pred(m)]
            if len(got) >= n:
                time.sleep(0.3)  # and nothing more comes
                with self.lock:
                    return list(self.messages)
            time.sleep(0.1)
        with self.lock:
            return list(self.messages)

    def stop(self):
        self.stopped = True
        self.sock.close()


def event_of(message):
    """The JSON event of an RFC 5424 message: after the header's six fields and "-" (no SD)."""
    return json.loads(message.split(" - ", 1)[1])


@unittest.skipUnless(RELAY_BIN and os.path.exists(RELAY_BIN), "TOOLCAGE_RELAY_BIN names no built toolcage-relay")
@unittest.skipUnless(shutil.which("openssl") and shutil.which("curl"), "needs openssl and curl")
@unittest.skipIf(os.path.exists("/etc/toolcage/fleet.json"), "this host's own fleet setting would win")
class InspectedRequestsAreHttpActivity(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="toolcage-http-activity-")
        self.addCleanup(shutil.rmtree, self.root, True)
        prefix = os.path.join(self.root, "prefix")
        os.makedirs(os.path.join(prefix, "bin"))
        os.makedirs(os.path.join(prefix, "share", "toolcage"))
        self.relay_bin = os.path.join(prefix, "bin", "toolcage-relay")
        shutil.copy2(RELAY_BIN, self.relay_bin)
        self.collector = Collector()
        self.addCleanup(self.collector.stop)
        with open(os.path.join(prefix, "share", "toolcage", "fleet.json"), "w") as f:
            json.dump({"log": {"syslog": f"tcp://127.0.0.1:{self.collector.port}"}}, f)
        # The server: openssl s_server with a certificate for localhost, trusted as relay.upstream_ca.
        cert, key = self.path("server.pem"), self.path("server.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                       check=True, capture_output=True)
        self.server_port = free_port()
        self.server = subprocess.Popen(["openssl", "s_server", "-accept", f"127.0.0.1:{self.server_port}",
                                        "-cert", cert, "-key", key, "-www", "-quiet"],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self.stop, self.server)
        self.wait_listening(self.server_port)
        host = f"localhost:{self.server_port}"
        secret_file = self.path("token")
        with open(os.open(secret_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(SECRET + "\n")
        inspect = self.path("inspect.json")
        with open(os.open(inspect, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            json.dump({"ca_dir": self.path("ca"), "inspect": [host], "upstream_ca": cert,
                       "credentials": [{"host": host, "secret_file": secret_file, "as": "bearer",
                                        "placeholder_env": "API_TOKEN", "placeholder": PLACEHOLDER}],
                       "requests": {host: {"deny": [{"method": "POST", "path": "/*"}]}}}, f)
        self.log = self.path("relay.log")
        read, write = os.pipe()
        err = self.path("relay.err")
        with open(err, "w") as stderr:
            self.relay = subprocess.Popen([self.relay_bin, "--listen", "127.0.0.1:0", "--allow", host,
                                           "--allow-private", "--inspect-file", inspect, "--log", self.log,
                                           "--ready-fd", str(write)],
                                          pass_fds=(write,), stdin=subprocess.DEVNULL, stderr=stderr)
        self.addCleanup(self.stop, self.relay)
        os.close(write)
        with os.fdopen(read) as r:
            line = r.readline()
        with open(err) as f:
            self.assertTrue(line.strip(), "the relay did not say it listens: " + f.read())
        self.relay_port = int(line)

    def path(self, name):
        return os.path.join(self.root, name)

    @staticmethod
    def stop(p):
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    @staticmethod
    def wait_listening(port):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return
            time.sleep(0.05)
        raise AssertionError(f"nothing listens on {port}")

    def curl(self, *extra, path="/data"):
        url = f"https://localhost:{self.server_port}{path}?token={QUERY_VALUE}"
        return subprocess.run(["curl", "-sS", "-i", "--max-time", "10", "--noproxy", "", "-x",
                               f"http://127.0.0.1:{self.relay_port}", "--cacert", self.path("ca/ca.pem"),
                               "-H", f"Authorization: Bearer {PLACEHOLDER}", *extra, url],
                              capture_output=True, text=True, timeout=30)

    def test_an_allowed_and_a_refused_request_are_one_event_each(self):
        got = self.curl()
        self.assertIn("HTTP/1.0 200", got.stdout, got.stderr)  # s_server -www answers in HTTP/1.0
        refused = self.curl("-X", "POST", "-d", "x=1")
        self.assertIn("HTTP/1.1 403", refused.stdout, refused.stderr)
        # The placeholder in a path: refused (it is replaced only in its header), and named, not
        # copied, in the event.
        in_path = self.curl(path=f"/p/{PLACEHOLDER}/x")
        self.assertIn("HTTP/1.1 403", in_path.stdout, in_path.stderr)
        messages = self.collector.wait_for(lambda m: " http_activity " in m, 3)
        events = [event_of(m) for m in messages]
        http = [e for e in events if e["class_uid"] == 4002]
        self.assertEqual([e["http_request"]["http_method"] for e in http], ["GET", "POST", "GET"], messages)

        get, post, placeholder = http
        self.assertEqual(placeholder["http_request"]["url"]["path"], "/p/{placeholder of $API_TOKEN}/x")
        self.assertEqual(placeholder["firewall_rule"]["uid"], "relay.credentials/0")
        self.assertEqual(placeholder["action_id"], 2)
        self.assertEqual((get["activity_id"], get["action_id"], get["disposition_id"], get["status_id"]), (3, 1, 1, 1))
        self.assertEqual(get["http_request"]["url"]["hostname"], "localhost")
        self.assertEqual(get["http_request"]["url"]["port"], self.server_port)
        self.assertEqual(get["http_request"]["url"]["path"], "/data")
        self.assertEqual(get["unmapped"]["credential_binding"],
                         {"host": f"localhost:{self.server_port}", "kind": "bearer"})
        self.assertEqual(get["src_endpoint"]["ip"], "127.0.0.1")
        self.assertEqual((post["activity_id"], post["action_id"], post["disposition_id"], post["status_id"]),
                         (6, 2, 2, 2))
        self.assertEqual(post["http_response"]["code"], 403)
        self.assertEqual(post["firewall_rule"]["uid"], f'relay.requests["localhost:{self.server_port}"].deny[0]')
        self.assertNotIn("credential_binding", post.get("unmapped", {}))

        bad = [f"{e['class_uid']}: {x}" for e in events for x in ocsf_schema.errors(e, SCHEMAS)]
        self.assertEqual(bad, [])
        self.stop(self.relay)
        with open(self.log, encoding="utf-8") as f:
            log = f.read()
        for text, where in [("\n".join(messages), "an event"), (log, "the relay's log")]:
            for value in (SECRET, PLACEHOLDER, QUERY_VALUE):
                self.assertNotIn(value, text, f"{where} holds {value}")


if __name__ == "__main__":
    unittest.main()
