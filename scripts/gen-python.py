#!/usr/bin/env python3
"""Generates the Python client's result dataclasses (clients/python/sandbox_browser/types.py) and its
methods (clients/python/sandbox_browser/_methods.py) from the API's JSON Schema (docs/api.schema.json,
which `sandbox-browser schema` prints from the Rust types).

    scripts/gen-python.py           # writes types.py and _methods.py
    scripts/gen-python.py --check   # exits 1 when either is not what the schema gives (CI)

Each method of the API becomes one Python method: its name is the wire name's last part for `runtime.*`
and `page.*` (`page.goto` -> `goto`) and the whole name for `session.*` and `tabs.*` (`tabs.list` ->
`tabs_list`); a session's methods take `session_id` first; the parameters in POSITIONAL come next, the
others are keyword-only; every one takes `timeout_ms`. Its doc string is the method's and its
parameters' descriptions.

Every method's result becomes a dataclass on top of `Result`, the common part every result has
(`x-common-result`: elapsed_ms, session_reset, reset_reason, waited_for_recovery_ms, dialogs,
downloads) plus `extra`, which keeps the fields a newer runtime sends that this client does not know.
Every field has a default, so a result decodes whatever the runtime left out. Standard library only,
for Python 3.9 (typing's Optional/List/Dict, no `X | None`).
"""

import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "docs" / "api.schema.json"
OUT = ROOT / "clients" / "python" / "sandbox_browser" / "types.py"
METHODS_OUT = ROOT / "clients" / "python" / "sandbox_browser" / "_methods.py"

# The parameters a method takes by position after `session_id` (`?`: optional, default None), as the
# hand-written client had them; `wire:python` renames one (`from` is a keyword in Python).
POSITIONAL = {
    "session.start": ["session_id?"],
    "page.goto": ["url"],
    "page.evaluate": ["expression?"],
    "page.click": ["ref?"],
    "page.type": ["ref?", "text?"],
    "page.fill": ["ref?", "value?"],
    "page.press": ["key"],
    "page.hover": ["ref?"],
    "page.handle_dialog": ["accept"],
    "page.select": ["ref?"],
    "page.check": ["ref?"],
    "page.scroll": ["ref?"],
    "page.drag": ["from:source", "to:target"],
    "page.set_viewport": ["width", "height"],
    "tabs.open": ["url?"],
    "tabs.focus": ["target_id"],
    "tabs.close": ["target_id"],
}

METHODS_HEADER = '''"""The API's methods, once for both clients: each builds its request and hands it to ``_request``,
which the sync :class:`~sandbox_browser.Client` runs at once and the :class:`~sandbox_browser.AsyncClient`
returns as a coroutine.

Generated from docs/api.schema.json by scripts/gen-python.py: do not edit by hand (CI checks it).

Every method takes ``timeout_ms``: the request's one budget in ms (the runtime clamps it to
1000..120000; ``None`` means the method's default). Page methods name their element by ``ref`` (from
a snapshot, ``"e12"``) or by a CSS ``selector``. A parameter left ``None`` is not sent (the runtime's
default applies).
"""

from typing import Any, Dict, List, Literal, Optional, Type

from .types import (
{imports}
)


def _params(values: Dict[str, Any]) -> Dict[str, Any]:
    """The params object: ``None`` values left out (the runtime's defaults apply)."""
    return {{k: v for k, v in values.items() if v is not None}}


class Methods:
    """One method per API method (docs/protocol.md)."""

    def _request(
        self, method: str, session_id: Optional[str], params: Dict[str, Any], timeout_ms: Optional[int], result: Type[Any]
    ) -> Any:
        raise NotImplementedError
'''

ASYNC_METHODS_HEADER = '''

class AsyncMethods:
    """The same methods as :class:`Methods`, each a coroutine (the :class:`~sandbox_browser.AsyncClient`'s):
    typed so that ``await client.goto(...)`` is the result."""

    async def _request(
        self, method: str, session_id: Optional[str], params: Dict[str, Any], timeout_ms: Optional[int], result: Type[Any]
    ) -> Any:
        raise NotImplementedError
'''

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


class MethodGen:
    """The Python methods of every method in the schema's `x-methods`."""

    def __init__(self, doc: dict) -> None:
        self.defs: Dict[str, dict] = doc["$defs"]
        self.doc = doc

    def param_type(self, schema: dict) -> str:
        """The Python type of a parameter (without Optional): enums as Literal, objects as dicts."""
        name = ref_name(schema)
        if name:
            d = self.defs[name]
            values = d.get("enum") or [c["const"] for c in d.get("oneOf", []) if "const" in c]
            if values:
                return "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"
            return "Dict[str, Any]" if d.get("type") == "object" or "anyOf" in d else "Any"
        if "anyOf" in schema:
            parts = [p for p in schema["anyOf"] if p.get("type") != "null"]
            return self.param_type(parts[0]) if len(parts) == 1 else "Any"
        kind = schema.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            kind = kinds[0] if len(kinds) == 1 else None
        if kind == "array":
            return f"List[{self.param_type(schema.get('items', {}))}]"
        return {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "object": "Dict[str, Any]"}.get(
            kind, "Any"
        )

    def method(self, m: dict, asynchronous: bool = False) -> Tuple[str, str]:
        """(result class, the method's text): a coroutine that awaits ``_request`` when ``asynchronous``."""
        wire = m["name"]
        group, last = wire.split(".", 1)
        py = last if group in ("runtime", "page") else f"{group}_{last}"
        params_def = self.defs[ref_name(m["params"])]
        props: Dict[str, dict] = params_def.get("properties", {})
        required = set(params_def.get("required", []))
        result = RENAMED.get(ref_name(m["result"]), ref_name(m["result"]))
        args: List[str] = ["self"]
        if m["session"]:
            args.append("session_id: str")
        names: Dict[str, str] = {}
        positional = POSITIONAL.get(wire, [])
        for spec in positional:
            optional = spec.endswith("?")
            wire_name, _, py_name = spec.rstrip("?").partition(":")
            py_name = py_name or wire_name
            names[wire_name] = py_name
            t = self.param_type(props[wire_name])
            args.append(f"{py_name}: Optional[{t}] = None" if optional else f"{py_name}: {t}")
        args.append("*")
        for prop in sorted(props):
            if prop in names:
                continue
            names[prop] = prop
            t = self.param_type(props[prop])
            args.append(f"{prop}: {t}" if prop in required else f"{prop}: Optional[{t}] = None")
        args.append("timeout_ms: Optional[int] = None")
        kw = "async def" if asynchronous else "def"
        lines = [f"    {kw} {py}(", *[f"        {a}," for a in args[:]], f"    ) -> {result}:"]
        one = f"    {kw} {py}({', '.join(args)}) -> {result}:"
        if len(one) <= 120:
            lines = [one]
        doc = [doc_text(m.get("description", wire))]
        for prop in sorted(props, key=lambda p: list(names).index(p)):
            text = props[prop].get("description") if isinstance(props[prop], dict) else None
            if text:
                doc.append(f":param {names[prop]}: {doc_text(text)}")
        wrap = [textwrap.fill(d, 110, initial_indent="        ", subsequent_indent="        ") for d in doc]
        body = wrap[0] + ("\n\n" + "\n".join(wrap[1:]) if len(wrap) > 1 else "")
        lines.append(f'        """{body.lstrip()}')
        lines.append('        """')
        session = "session_id" if m["session"] else "None"
        values = ", ".join(f'"{w}": {p}' for w, p in names.items())
        if names and len(values) <= 90:
            lines.append(f"        params = _params({{{values}}})")
        elif names:
            lines.append("        params = _params(")
            lines.append("            {")
            lines.extend(f'                "{w}": {p},' for w, p in names.items())
            lines.append("            }")
            lines.append("        )")
        call = "await self._request" if asynchronous else "self._request"
        lines.append(f'        return {call}("{wire}", {session}, {"params" if names else "{}"}, timeout_ms, {result})')
        return result, "\n".join(lines) + "\n"

    def run(self) -> str:
        results: List[str] = []
        texts: Dict[bool, List[str]] = {False: [], True: []}
        for asynchronous in (False, True):
            group = ""
            for m in self.doc["x-methods"]:
                result, text = self.method(m, asynchronous)
                if result not in results:
                    results.append(result)
                g = m["name"].split(".")[0]
                if g != group:
                    texts[asynchronous].append(f"    # {g}.*\n")
                    group = g
                texts[asynchronous].append(text)
        imports = "\n".join(f"    {r}," for r in sorted(results))
        return (
            METHODS_HEADER.format(imports=imports)
            + "\n"
            + "\n".join(texts[False])
            + ASYNC_METHODS_HEADER
            + "\n"
            + "\n".join(texts[True])
        )


def doc_text(text: str) -> str:
    """A doc comment as a docstring: one paragraph a line, rustdoc's links and backticks as RST literals."""
    text = " ".join(text.split()).replace('"""', "\'\'\'").replace("\\", "\\\\")
    text = re.sub(r"\[`([^`\]]+)`\](\([^)]*\))?", r"`\1`", text)
    return re.sub(r"`([^`]+)`", r"``\1``", text)


def main() -> int:
    doc = json.loads(SCHEMA.read_text())
    outputs = [(OUT, Gen(doc).run()), (METHODS_OUT, MethodGen(doc).run())]
    if sys.argv[1:] == ["--check"]:
        stale = [path for path, text in outputs if path.read_text() != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run scripts/gen-python.py", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs:
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
