#!/usr/bin/env python3
"""A JSON Schema derived from OCSF 1.8.0 class and object definitions, and a validator.

Each class and object becomes a JSON Schema object: its attributes with their types (integer,
long, timestamp in milliseconds, port, string, boolean, object, arrays where `is_array`), the
integer enums of the dictionary, the required attributes (those of a profile only when the
event lists the profile in metadata.profiles) and no attribute the definition does not have.
Beside the schema: an `X` caption must be the one of its `X_id` (unless `X_id` is 99, Other).
Validation is Debian's python3-jsonschema (Draft 2020-12).

Usage: ocsf_schema.py SCHEMA_DIR < events.jsonl   (exit 1 and every error when one is invalid)
"""
import json
import os
import sys

import jsonschema

CLASS_UIDS = {2004: "detection_finding", 1007: "process_activity", 4001: "network_activity",
              4002: "http_activity"}


def _load(schema_dir, kind):
    out = {}
    d = os.path.join(schema_dir, kind)
    for f in sorted(os.listdir(d)):
        if f.endswith(".json"):
            with open(os.path.join(d, f)) as fh:
                out[f[:-5]] = json.load(fh)
    return out


def _attr_schema(a, objects):
    t = a.get("type")
    if t == "object_t":
        name = a.get("object_type")
        s = {"$ref": f"#/$defs/{name}"} if name in objects else {"type": "object"}
    elif t in ("integer_t", "long_t"):
        s = {"type": "integer"}
    elif t == "timestamp_t":
        s = {"type": "integer", "minimum": 10**12, "maximum": 10**14}  # milliseconds
    elif t == "port_t":
        s = {"type": "integer", "minimum": 0, "maximum": 65535}
    elif t == "float_t":
        s = {"type": "number"}
    elif t == "boolean_t":
        s = {"type": "boolean"}
    elif t == "json_t":
        s = {}
    else:
        s = {"type": "string"}
    if "enum" in a and t in ("integer_t", "long_t"):
        s["enum"] = [int(k) for k in a["enum"]]
    if a.get("is_array"):
        s = {"type": "array", "items": s}
    return s


def _object_schema(defn, objects, profiles):
    props, required = {}, []
    for name, a in defn["attributes"].items():
        props[name] = _attr_schema(a, objects)
        if a.get("requirement") == "required":
            need = a.get("profiles") or []
            if not need or any(p in profiles for p in need):
                required.append(name)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def schema_for(event, schema_dir):
    """The JSON Schema for this event's class, or None for a class not vendored."""
    classes, objects = _load(schema_dir, "classes"), _load(schema_dir, "objects")
    cls = CLASS_UIDS.get(event.get("class_uid"))
    if cls not in classes:
        return None
    profiles = set((event.get("metadata") or {}).get("profiles") or [])
    s = _object_schema(classes[cls], objects, profiles)
    s["$defs"] = {n: _object_schema(o, objects, profiles) for n, o in objects.items()}
    s["properties"]["class_uid"]["const"] = classes[cls]["uid"] if "uid" in classes[cls] else event["class_uid"]
    return s


def _caption_errors(obj, defn, where):
    errs = []
    for name, a in defn["attributes"].items():
        if name.endswith("_id") and "enum" in a and name in obj:
            sib = name[:-3]
            if sib in obj and obj[name] != 99 and str(obj[name]) in a["enum"]:
                want = a["enum"][str(obj[name])]["caption"]
                if obj[sib] != want:
                    errs.append(f"{where}{sib}: {obj[sib]!r} is not the caption of {name}={obj[name]} ({want!r})")
    return errs


def errors(event, schema_dir):
    if not isinstance(event, dict):
        return ["not a JSON object"]
    s = schema_for(event, schema_dir)
    if s is None:
        return [f"class_uid {event.get('class_uid')!r} is not one of {sorted(CLASS_UIDS)}"]
    v = jsonschema.Draft202012Validator(s)
    errs = [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(event)]
    classes = _load(schema_dir, "classes")
    errs += _caption_errors(event, classes[CLASS_UIDS[event["class_uid"]]], "/")
    if event.get("type_uid") != event.get("class_uid", 0) * 100 + event.get("activity_id", -1):
        errs.append("/type_uid: not class_uid * 100 + activity_id")
    if (event.get("metadata") or {}).get("version") != "1.8.0":
        errs.append("/metadata/version: not 1.8.0")
    return errs


def main():
    schema_dir = sys.argv[1]
    bad = 0
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        for e in errors(json.loads(line), schema_dir):
            print(f"event {n}: {e}")
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
