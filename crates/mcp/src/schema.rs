//! Tool input schemas, generated from the protocol's parameter types (`schemars`) and then made small:
//! a tool definition is read by the model on every turn, so every character counts.

use sb_protocol::api::Method;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// The JSON Schema (draft 2020-12, subschemas inlined) of `T`'s JSON form, compacted by [`compact`]
/// (`timeout_ms`, which every tool takes, is not listed: the server's instructions say so once).
///
/// The result is always an object schema (`{"type": "object", "properties": {...}}`), as MCP's
/// `Tool.inputSchema` must be.
pub fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    shaped(generator().into_root_schema_for::<T>().to_value())
}

/// [`input_schema`] of `method`'s params type, from its declaration ([`Method::schemas`]): the
/// arguments of the tool a method is declared with when the table writes none of its own.
pub fn params_schema(method: Method) -> Map<String, Value> {
    let mut generator = generator();
    let (params, _) = method.schemas(&mut generator);
    shaped(params.to_value())
}

/// The schema generator of the tools' arguments: draft 2020-12, every subschema inline.
fn generator() -> schemars::SchemaGenerator {
    SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true).into_generator()
}

/// A params type's JSON Schema as a tool's `inputSchema` (see [`input_schema`]).
fn shaped(mut schema: Value) -> Map<String, Value> {
    compact(&mut schema);
    short_selectors(&mut schema);
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.values_mut().for_each(undescribed_fields);
    }
    if let Value::Object(root) = &mut schema {
        // The tool's own description says what the arguments are for.
        root.remove("description");
    }
    let mut object = match schema {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    object.insert("type".into(), "object".into());
    // A property not listed is refused (by the tool and by the socket): the server's instructions say
    // so once ([`crate::INSTRUCTIONS`]), not every schema (`additionalProperties: false` was 1,680 of
    // tools/list's characters).
    object.remove("additionalProperties");
    let properties = object.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(properties) = properties {
        // The input tools settle as Playwright MCP's do (`MCP_SETTLE_MS`, set by the server), which has
        // no such argument either.
        properties.remove("settle_ms");
        // `timeout_ms`, which every tool takes, is described once, in the server's instructions
        // ([`crate::INSTRUCTIONS`]), not on every tool (it was 2,079 of tools/list's characters).
        // Playwright MCP's element tools take `element` beside the ref (a description a person can
        // approve), and models used to them send it: taken, and not used to find the element.
        if properties.contains_key("ref") {
            properties.insert(
                ELEMENT.into(),
                // Described once, in the server's instructions, as `timeout_ms` is.
                serde_json::json!({"type": "string"}),
            );
        }
    }
    object
}

/// What a `selector` property says in a tool's schema: the rules are the server's instructions'
/// ([`crate::INSTRUCTIONS`]), said once, not in each of the thirteen tools that take one.
pub const SELECTOR: &str = "A selector (CSS or Playwright's; see the instructions).";

/// Every `selector` property in `schema`, at any depth (drag's `from`/`to`, fill_form's fields),
/// described by [`SELECTOR`].
fn short_selectors(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(selector)) =
                map.get_mut("properties").and_then(|p| p.get_mut("selector"))
            {
                selector.insert("description".into(), SELECTOR.into());
            }
            map.values_mut().for_each(short_selectors);
        }
        Value::Array(items) => items.iter_mut().for_each(short_selectors),
        _ => {}
    }
}

/// The fields of an argument that is an object or a list of objects (a clip's `x`, `y`, `width`,
/// `height`; a cookie's `name`, `value`, `domain`, ...) without their descriptions: their names say
/// what they are, and the argument's own description says what it is for.
fn undescribed_fields(argument: &mut Value) {
    let Value::Object(map) = argument else { return };
    let object = match map.get_mut("items") {
        Some(items @ Value::Object(_)) => items,
        _ => argument,
    };
    let Some(Value::Object(fields)) = object.get_mut("properties") else { return };
    for field in fields.values_mut() {
        if let Value::Object(field) = field {
            field.remove("description");
        }
        undescribed_fields(field);
    }
}

/// The argument an element tool takes beside `ref` as Playwright MCP's do: a description of the
/// element, for a person to read; not passed on.
pub const ELEMENT: &str = "element";

/// Shrinks a generated schema without changing what it accepts for a model's purposes:
/// drops `$schema`, `title`, `format` (`uint32`, `double`), `minimum: 0` of unsigned integers and
/// `default`s that are `null`/`false`/empty; writes `["T", "null"]` types and `anyOf [T, null]` as
/// plain `T` (an absent field means the default); turns a `oneOf` of string constants into an `enum`;
/// and makes doc-comment descriptions plain text (no rustdoc link brackets or backticks), their first
/// sentence only (the rest is the socket API's detail, in docs/protocol.md): a model reads every
/// tool's schema on every turn.
pub fn compact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in ["$schema", "title", "format"] {
                map.remove(key);
            }
            if map.get("minimum") == Some(&Value::from(0)) {
                map.remove("minimum");
            }
            if matches!(map.get("default"), Some(Value::Null | Value::Bool(false)))
                || map.get("default").is_some_and(|d| d.as_array().is_some_and(Vec::is_empty))
            {
                map.remove("default");
            }
            if let Some(Value::Array(types)) = map.get("type") {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if kept.len() == 1 {
                    map.insert("type".into(), kept[0].clone());
                }
            }
            if let Some(Value::Array(any)) = map.get("anyOf") {
                let kept: Vec<Value> =
                    any.iter().filter(|s| s.get("type") != Some(&Value::from("null"))).cloned().collect();
                if kept.len() == 1 {
                    map.remove("anyOf");
                    if let Value::Object(inner) = &kept[0] {
                        for (k, v) in inner {
                            map.entry(k.clone()).or_insert_with(|| v.clone());
                        }
                    }
                }
            }
            if let Some(Value::Array(one)) = map.get("oneOf") {
                let consts: Option<Vec<Value>> = one.iter().map(|s| s.get("const").cloned()).collect();
                if let Some(consts) = consts {
                    map.remove("oneOf");
                    map.insert("type".into(), "string".into());
                    map.insert("enum".into(), Value::Array(consts));
                }
            }
            if let Some(Value::String(text)) = map.get_mut("description") {
                *text = first_sentence(&plain(text));
            }
            if let Some(Value::Object(items)) = map.get_mut("items") {
                // An array's items are described by the array's own description.
                items.remove("description");
            }
            for (key, child) in map.iter_mut() {
                match (key.as_str(), child) {
                    // Property names are not schema keywords: only their schemas are compacted.
                    ("properties", Value::Object(properties)) => properties.values_mut().for_each(compact),
                    (_, child) => compact(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(compact),
        _ => {}
    }
}

/// `text` up to the end of its first sentence (a `. ` not after `e.g` or `i.e`).
fn first_sentence(text: &str) -> String {
    let mut from = 0;
    while let Some(at) = text[from..].find(". ").map(|i| from + i) {
        let before = &text[..at];
        if !(before.ends_with("e.g") || before.ends_with("i.e")) {
            return text[..=at].to_string();
        }
        from = at + 2;
    }
    text.to_string()
}

/// A doc comment as plain text: one line, no ` ([`NAME`])` asides (a constant's name after its
/// value), no `[`links`]` brackets, no backticks.
fn plain(text: &str) -> String {
    let mut one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    while let Some(start) = one_line.find(" ([`") {
        let Some(len) = one_line[start..].find("`])") else { break };
        one_line.replace_range(start..start + len + 3, "");
    }
    one_line.replace("[`", "").replace("`]", "").replace('`', "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_fields_enums_and_links_are_compacted() {
        let mut schema = json!({
            "$schema": "x", "title": "T", "type": "object",
            "properties": {
                "n": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "description": "at most\n5 ([`MAX`]), see [`Other`]. The rest, e.g. this. Is detail."},
                "format": {"type": "string", "description": "a property named like a keyword"},
                "b": {"anyOf": [{"type": "string", "oneOf": [{"const": "left"}, {"const": "right"}]}, {"type": "null"}]},
                "f": {"type": "boolean", "default": false}
            }
        });
        compact(&mut schema);
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {
                "n": {"type": "integer", "description": "at most 5, see Other."},
                "format": {"type": "string", "description": "a property named like a keyword"},
                "b": {"type": "string", "enum": ["left", "right"]},
                "f": {"type": "boolean"}
            }})
        );
    }

    #[test]
    fn every_schema_is_an_object_and_the_budget_is_said_once() {
        let schema = input_schema::<sb_protocol::api::ClickParams>();
        assert_eq!(schema["type"], "object");
        // Unknown arguments are refused; the instructions say so once, no schema says it again.
        assert!(schema.get("additionalProperties").is_none());
        assert!(crate::INSTRUCTIONS.contains("does not list is refused"));
        assert!(schema["properties"].get("timeout_ms").is_none());
        assert!(crate::INSTRUCTIONS.contains("Every tool takes timeout_ms"));
        assert_eq!(schema["properties"]["ref"]["type"], "string");
        assert!(schema["properties"]["button"]["enum"].as_array().unwrap().contains(&json!("right")));
    }

    /// A tool that takes a ref takes Playwright MCP's `element` beside it; one that does not, not.
    #[test]
    fn element_tools_take_playwright_mcps_element() {
        let click = input_schema::<sb_protocol::api::ClickParams>();
        assert_eq!(click["properties"][ELEMENT], json!({"type": "string"}));
        let goto = input_schema::<sb_protocol::api::GotoParams>();
        assert!(goto["properties"].get(ELEMENT).is_none());
    }
}
