#!/usr/bin/env python3
"""Generates the Python client's result dataclasses (clients/python/sandbox_browser/types.py) from the
API's JSON Schema (docs/api.schema.json, which `sandbox-browser schema` prints from the Rust types).

    scripts/gen-python.py           # writes types.py
    scripts/gen-python.py --check   # exits 1 when types.py is not what the schema gives (CI)

Every method's result becomes a dataclass on top of `Result`, the common part every result has
(`x-common-result`: elapsed_ms, session_reset, reset_reason, waited_for_recovery_ms, dialogs,
downloads) plus `extra`, which keeps the fields a newer runtime sends that this client does not know.
Every field has a default, so a result decodes whatever the runtime left out. Standard library only,
for Python 3.9 (typing's Optional/List/Dict, no `X | None`).
"""

import json
import sys
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "docs" / "api.schema.json"
OUT = ROOT / "clients" / "python" / "sandbox_browser" / "types.py"

# Python names that differ from the schema's: `page.scroll` answers either shape (an untagged enum in
# Rust); in Python it is one class with the fields of both.
RENAMED = {"ScrollAnswer": "ScrollResult", "ScrollResult": "PageScrollResult"}

HEADER = '''"""Results of the runtime's API methods, as dataclasses.

Generated from docs/api.schema.json by scripts/gen-python.py: do not edit by hand (CI checks it).

Every result has the common part (:class:`Result`): ``elapsed_ms``, ``session_reset`` and
``reset_reason`` when the session's page was replaced since its last result, ``waited_for_recovery_ms``,
and the ``dialogs`` answered and ``downloads`` seen during the action. Fields a newer runtime adds are
kept in ``extra``, so an older client still shows them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ._decode import from_dict

__all__ = ["from_dict", "Result"{names}]
'''


def ref_name(schema: dict) -> Optional[str]:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if ref else None


class Gen:
    def __init__(self, doc: dict) -> None:
        self.defs: Dict[str, dict] = doc["$defs"]
        self.doc = doc
        self.emitted: List[Tuple[str, str]] = []
        self.done: Set[str] = set()

    def py_name(self, name: str) -> str:
        return RENAMED.get(name, name)

    def is_object(self, name: str) -> bool:
        d = self.defs[name]
        return d.get("type") == "object" or "anyOf" in d and all(ref_name(p) for p in d["anyOf"])

    def annotation(self, schema: dict) -> Tuple[str, str]:
        """(type annotation, default) of a property schema."""
        if schema is True or schema == {} or (isinstance(schema, dict) and set(schema) <= {"description"}):
            return "Any", "None"
        name = ref_name(schema)
        if name:
            if self.is_object(name):
                self.emit(name)
                cls = self.py_name(name)
                return cls, f"field(default_factory={cls})"
            return self.annotation({k: v for k, v in self.defs[name].items() if k != "description"} | {"description": ""})
        if "anyOf" in schema:
            parts = [p for p in schema["anyOf"] if p.get("type") != "null"]
            if len(parts) == 1:
                inner, _ = self.annotation(parts[0])
                return f"Optional[{inner}]", "None"
            return "Any", "None"
        if "oneOf" in schema or "enum" in schema or "const" in schema:
            return "str", '""'
        kind = schema.get("type")
        nullable = isinstance(kind, list) and "null" in kind
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            kind = kinds[0] if len(kinds) == 1 else None
        if kind == "string":
            base, default = "str", '""'
        elif kind == "integer":
            base, default = "int", "0"
        elif kind == "number":
            base, default = "float", "0.0"
        elif kind == "boolean":
            base, default = "bool", "False"
        elif kind == "array":
            inner, _ = self.annotation(schema.get("items", {}))
            base, default = f"List[{inner}]", "field(default_factory=list)"
        elif kind == "object":
            inner, _ = self.annotation(schema.get("additionalProperties", {}))
            base, default = f"Dict[str, {inner}]", "field(default_factory=dict)"
        else:
            return "Any", "None"
        if nullable:
            return f"Optional[{base}]", "None"
        if "default" in schema and kind in ("integer", "number", "boolean", "string"):
            default = json.dumps(schema["default"]) if kind != "boolean" else str(bool(schema["default"]))
        return base, default

    def properties(self, name: str) -> Dict[str, dict]:
        d = self.defs[name]
        if "anyOf" in d:
            merged: Dict[str, dict] = {}
            for part in d["anyOf"]:
                merged.update(self.properties(ref_name(part)))
            return merged
        return d.get("properties", {})

    def emit(self, name: str, base: Optional[str] = None, skip: Set[str] = frozenset()) -> None:
        if name in self.done:
            return
        self.done.add(name)
        lines = []
        for prop, schema in sorted(self.properties(name).items()):
            if prop in skip:
                continue
            ann, default = self.annotation(schema)
            lines.append(f"    {prop}: {ann} = {default}")
            text = schema.get("description") if isinstance(schema, dict) else None
            if text:
                lines.append(f'    """{doc_text(text)}"""')
        cls = self.py_name(name)
        description = self.defs[name].get("description", "")
        head = f"@dataclass\nclass {cls}{f'({base})' if base else ''}:\n"
        if description:
            head += f'    """{doc_text(description)}"""\n\n'
        body = "\n".join(lines) if lines else "    pass"
        self.emitted.append((cls, head + body + "\n"))

    def run(self) -> str:
        common = self.defs[ref_name(self.doc["x-common-result"])]
        common_name = ref_name(self.doc["x-common-result"])
        self.done.add(common_name)
        results = []
        for method in self.doc["x-methods"]:
            name = ref_name(method["result"])
            if name not in results:
                results.append(name)
        # The common part: the base of every result, after the classes its fields name.
        self.done.discard(common_name)
        self.emit(common_name)
        cls, text = self.emitted[-1]
        text = text.replace(f"class {cls}:", "class Result:", 1)
        text += '    extra: Dict[str, Any] = field(default_factory=dict)\n'
        text += '    """Fields the runtime sent that this client does not know (a newer runtime\'s), as JSON."""\n'
        self.emitted[-1] = ("Result", text)
        common_fields = set(common.get("properties", {}))
        for name in results:
            self.emit(name, base="Result", skip=common_fields)
        names = "".join(f', "{c}"' for c, _ in self.emitted if c != "Result")
        parts = [HEADER.format(names=names)] + [t for _, t in self.emitted]
        return "\n\n".join(p.rstrip("\n") + "\n" for p in parts)


def doc_text(text: str) -> str:
    """A doc comment as a docstring: one paragraph a line, rustdoc's brackets and backticks as RST."""
    text = " ".join(text.split())
    for a, b in (("[`", "``"), ("`]", "``"), ('"""', "'''")):
        text = text.replace(a, b)
    out, i = [], 0
    while i < len(text):
        if text[i] == "`" and not text.startswith("``", i):
            out.append("``")
        else:
            out.append(text[i])
        i += 1
    return "".join(out).replace("````", "``").replace("\\", "\\\\")


def main() -> int:
    text = Gen(json.loads(SCHEMA.read_text())).run()
    if sys.argv[1:] == ["--check"]:
        if OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run scripts/gen-python.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
