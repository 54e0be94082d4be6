// execute_code runs outside the cage: only code that provably only computes may pass.
#include <catch2/catch.hpp>

#include "hook/decision/python_readonly.h"

using toolcage::hook::check_python_read_only;

TEST_CASE("read-only Python passes", "[python]") {
    const char* ok[] = {
        "print(1 + 2)",
        "import json\nprint(json.dumps({'a': [1, 2]}))",
        "import math, statistics as st\nxs = [1.5, 2, 3e-4]\nprint(math.sqrt(sum(xs)), st.mean(xs))",
        "from collections import Counter\nprint(Counter('hello').most_common(2))",
        "def f(x):\n    return [i * i for i in range(x) if i % 2]\nprint(len(f(10)))",
        "x = 0x1F + 0o7 + 0b1 + 1_000 + 2j.imag\nprint(f'{x:>{10}} {x!r}')",
        "s = '''multi\nline'''\nprint(s.upper(), r'raw\\d', b'bytes')",
        "# a comment with open( and os.system in it\nprint('done')",
        "from datetime import datetime, timedelta\nprint(datetime(2024, 1, 1) + timedelta(days=3))",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print('caught', e)",
        "def g():\n    yield from range(3)\nprint(list(g()))",
        "print(f\"{'nested'} {[1, 2][0]}\")",
        "import re\nprint(re.sub(r'a', 'b', 'aaa'), re.compile('x').pattern)",
        "import random as r\nprint(r.randint(1, 6))",
        "from math import (sqrt,\n    pi as PI,)\nprint(sqrt(PI))",
        "print('{0.real} {name} {{literal}}'.format(1, name='x'))",
        "import datetime\nprint(datetime.datetime.now().isoformat())",
        "_ = 1\n_x = [_]\nprint(_x)",
    };
    for (const char* code : ok) {
        auto r = check_python_read_only(code);
        INFO(code << "\n-> " << r.why);
        CHECK(r.read_only);
    }
}

TEST_CASE("Python that could write, run or escape is refused", "[python]") {
    const char* bad[] = {
        "open('x', 'w').write('y')",
        "import os\nos.system('rm -rf ~')",
        "import subprocess\nsubprocess.run(['ls'])",
        "from os import system",
        "from pathlib import Path\nPath('x').write_text('y')",
        "import shutil",
        "__import__('os').system('id')",
        "exec('print(1)')",
        "eval('1')",
        "compile('1', 'x', 'exec')",
        "getattr(print, 'x')",
        "print(().__class__.__bases__[0].__subclasses__())",
        "import json\njson.codecs.open('x', 'w')",
        "import datetime\ndatetime.sys.modules['os'].system('id')",
        "g = (x for x in [1])\nprint(g.gi_frame.f_back)",
        "d = {}\nprint(d['op' 'en'])",
        "print('_' '_class__')",
        "print('\\x5f\\x5fclass\\x5f\\x5f')",
        "print(f'{open(\"x\", \"w\")}')",
        "print(f\"{\"a\"}{open('x')}\")",
        "ｏｐｅｎ('x', 'w')",
        "# -*- coding: utf-7 -*-\nprint(1)",
        "from . import x",
        "from json import *",
        "import hermes_tools",
        "from hermes_tools import terminal",
        "breakpoint()",
        "help()",
        "print('unterminated)",
        "import string\nstring.Formatter().get_field('0', [1], {})",
        "import operator\noperator.attrgetter('x')",
        "import typing",
        // A listed module's own imports and internals are not its names.
        "import shutil\nshutil.os.system('sh')",
        "import tempfile\ntempfile._os.system('sh')",
        "import random\nrandom._os.execv('/bin/sh', ['sh'])",
        "import random as r\nr._inst.seed(1)",
        "import re\nre.functools.reduce",
        "import re\nprint(re.enum)",
        "import json.decoder",
        "from json import decoder",
        "from json.decoder import scanstring",
        "from random import _os",
        "import datetime\ndatetime.datetime_CAPI",
        "from time import tzset",
        "import string\nstring.Formatter",
        // A module handed on, where what it imported is reachable without naming it here.
        "import json\nx = json\nx.decoder",
        "import json\nprint(json)",
        "import random\nprint([random][0])",
        "import random\nprint('{0._os}'.format(random))",
        // Format fields read attributes by name.
        "print('{0._os}'.format(1))",
        "g = (x for x in [1])\nprint('{0.gi_frame.f_globals}'.format(g))",
        "print('{0.f_back}'.format(1))",
        // Private attributes of anything.
        "class A:\n    pass\nprint(A()._secret)",
    };
    for (const char* code : bad) {
        auto r = check_python_read_only(code);
        INFO(code);
        CHECK_FALSE(r.read_only);
        CHECK_FALSE(r.why.empty());
    }
}

TEST_CASE("a NUL byte is refused", "[python]") {
    CHECK_FALSE(check_python_read_only(std::string_view("x = 1\0", 6)).read_only);
}

TEST_CASE("the refusal names the line", "[python]") {
    auto r = check_python_read_only("print(1)\nprint(2)\nimport os\n");
    CHECK_FALSE(r.read_only);
    CHECK(r.why.find("line 3") != std::string::npos);
}

TEST_CASE("our reading reads only text on which it agrees with Python", "[python]") {
    using toolcage::hook::check_python_text;
    const std::pair<const char*, const char*> refused[] = {
        {"# comment\rimport os", "carriage return"},
        {"print(1)\r\n", "carriage return"},
        {"x = 1\f\nprint(x)", "control character 12"},
        {"# c\vprint(1)", "control character 11"},
        {"print('\xc3\xa9')", "outside ASCII"},
        {"# c\xe2\x80\xa8print(1)", "outside ASCII"},
        {"x = 1 + \\\n2", "backslash at the end of a line"},
        {"# -*- coding: utf-7 -*-\nprint(1)", "line 1: declares a source encoding"},
        {"# vim: set fileencoding=utf_7 :\nprint(1)", "source encoding"},
        {"#coding=utf7\nprint(1)", "source encoding"},
        {"# encodings; coding: utf_7\nprint(1)", "source encoding"},
        {"#!/usr/bin/python3\n# CODING: utf-8\nprint(1)", "line 2: declares a source encoding"},
        {"print(1)\x7f", "control character 127"},
    };
    for (const auto& [code, why] : refused) {
        auto r = check_python_text(code);
        INFO(code << "\n-> " << r.why);
        CHECK_FALSE(r.read_only);
        CHECK(r.why.find(why) != std::string::npos);
    }
    // "coding" without a ':' or '=' after it, or past line 2, declares nothing.
    CHECK(check_python_text("# decoding is done below\nprint(1)").read_only);
    CHECK(check_python_text("\n\n# coding: utf-7\nprint(1)").read_only);
    CHECK(check_python_text("if 1:\n\tprint('a\\\\b')\n").read_only);
}
