"""Decoding a JSON object into the result dataclasses of :mod:`sandbox_browser.types` (hand-written;
the dataclasses themselves are generated from the API schema)."""

import dataclasses
import sys
from typing import Any, Dict, List, Type, TypeVar, Union, get_type_hints

T = TypeVar("T")


def from_dict(cls: Type[T], data: Any) -> T:
    """Builds dataclass ``cls`` from a JSON object, nested dataclasses and lists/dicts of them
    included. Keys ``cls`` does not have are kept in its ``extra`` (a result's), else ignored."""
    hints = get_type_hints(cls, vars(sys.modules[cls.__module__]))
    kwargs: Dict[str, Any] = {}
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if isinstance(data, dict) and f.name in data and f.name != "extra":
            kwargs[f.name] = _convert(hints[f.name], data[f.name])
    if "extra" in names and isinstance(data, dict):
        kwargs["extra"] = {k: v for k, v in data.items() if k not in names or k == "extra"}
    return cls(**kwargs)


def _convert(hint: Any, value: Any) -> Any:
    origin = getattr(hint, "__origin__", None)
    args = getattr(hint, "__args__", ())
    if value is None:
        return None
    if origin is Union:
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value) if len(inner) == 1 else value
    if origin in (list, List) and isinstance(value, list):
        return [_convert(args[0], v) for v in value] if args else value
    if origin in (dict, Dict) and isinstance(value, dict):
        return {k: _convert(args[1], v) for k, v in value.items()} if args else value
    if dataclasses.is_dataclass(hint) and isinstance(hint, type) and isinstance(value, dict):
        return from_dict(hint, value)
    return value
