//! The US keyboard layout: for a key name or a character, the `key`, `code`, `keyCode` and text a real
//! keyboard sends (as `Input.dispatchKeyEvent` wants them).

use sb_protocol::api::Modifier;

/// `Input.dispatchKeyEvent` modifier bits.
pub(crate) const ALT: u32 = 1;
pub(crate) const CONTROL: u32 = 2;
pub(crate) const META: u32 = 4;
pub(crate) const SHIFT: u32 = 8;

/// One key as a keyboard sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyDef {
    pub key: String,
    pub code: String,
    pub key_code: u32,
    /// What the key types (`None` for keys that type nothing, such as `Tab` or `ArrowLeft`).
    pub text: Option<String>,
    /// Needs Shift on a US keyboard (`A`, `!`, `?`).
    pub shifted: bool,
    /// 1 for the left modifier keys, else 0.
    pub location: u32,
}

impl KeyDef {
    fn new(key: &str, code: &str, key_code: u32, text: Option<&str>) -> KeyDef {
        KeyDef {
            key: key.into(),
            code: code.into(),
            key_code,
            text: text.map(str::to_string),
            shifted: false,
            location: 0,
        }
    }

    /// This key's bit when it is a modifier, else 0.
    pub(crate) fn modifier_bit(&self) -> u32 {
        match self.key.as_str() {
            "Alt" => ALT,
            "Control" => CONTROL,
            "Meta" => META,
            "Shift" => SHIFT,
            _ => 0,
        }
    }
}

pub(crate) fn shift() -> KeyDef {
    KeyDef { location: 1, ..KeyDef::new("Shift", "ShiftLeft", 16, None) }
}

/// Punctuation: (unshifted, shifted, code, keyCode).
const PUNCT: &[(char, char, &str, u32)] = &[
    ('`', '~', "Backquote", 192),
    ('-', '_', "Minus", 189),
    ('=', '+', "Equal", 187),
    ('[', '{', "BracketLeft", 219),
    (']', '}', "BracketRight", 221),
    ('\\', '|', "Backslash", 220),
    (';', ':', "Semicolon", 186),
    ('\'', '"', "Quote", 222),
    (',', '<', "Comma", 188),
    ('.', '>', "Period", 190),
    ('/', '?', "Slash", 191),
];
const SHIFTED_DIGITS: &str = ")!@#$%^&*(";

/// The key that types `c` on a US keyboard.
pub(crate) fn for_char(c: char) -> Option<KeyDef> {
    let s = c.to_string();
    if c.is_ascii_lowercase() {
        let up = c.to_ascii_uppercase();
        return Some(KeyDef::new(&s, &format!("Key{up}"), up as u32, Some(&s)));
    }
    if c.is_ascii_uppercase() {
        return Some(KeyDef { shifted: true, ..KeyDef::new(&s, &format!("Key{c}"), c as u32, Some(&s)) });
    }
    if c.is_ascii_digit() {
        return Some(KeyDef::new(&s, &format!("Digit{c}"), c as u32, Some(&s)));
    }
    if let Some(i) = SHIFTED_DIGITS.find(c) {
        return Some(KeyDef {
            shifted: true,
            ..KeyDef::new(&s, &format!("Digit{i}"), 48 + i as u32, Some(&s))
        });
    }
    for &(plain, shifted, code, key_code) in PUNCT {
        if c == plain {
            return Some(KeyDef::new(&s, code, key_code, Some(&s)));
        }
        if c == shifted {
            return Some(KeyDef { shifted: true, ..KeyDef::new(&s, code, key_code, Some(&s)) });
        }
    }
    match c {
        ' ' => Some(KeyDef::new(" ", "Space", 32, Some(" "))),
        '\n' | '\r' => named("Enter"),
        '\t' => named("Tab"),
        _ => None,
    }
}

/// The same key as it is with Shift held, where Shift makes it type another character (`a` -> `A`,
/// `3` -> `#`), as Playwright's `Keyboard` describes a key while Shift is down; else `def` itself.
pub(crate) fn with_shift(def: &KeyDef) -> KeyDef {
    let letter = def.code.strip_prefix("Key").filter(|l| l.len() == 1).and_then(|l| l.chars().next());
    letter.or_else(|| shifted_form(&def.code)).and_then(for_char).unwrap_or_else(|| def.clone())
}

/// What the key at `code` types with Shift on a US keyboard (`Digit3` `#`, `Equal` `+`), for the keys
/// whose shifted form is another character (digits and punctuation).
fn shifted_form(code: &str) -> Option<char> {
    if let Some(d) = code.strip_prefix("Digit").and_then(|d| d.parse::<usize>().ok()).filter(|d| *d < 10) {
        return SHIFTED_DIGITS.chars().nth(d);
    }
    PUNCT.iter().find(|p| p.2 == code).map(|p| p.1)
}

/// A key by Playwright's names: a `key` value (`Enter`, `ArrowLeft`, `F5`, `Control`, `a`, `~`), a
/// `code` value (`KeyA`, `Digit3`, `Numpad7`, `NumpadEnter`, `ShiftRight`, `Backquote`, `F13`), or
/// `ControlOrMeta` (Control here: the runtime runs on Linux). Numpad keys have `location` 3, right-side
/// modifiers 2, left-side ones 1 (as Playwright's `USKeyboardLayout`).
pub(crate) fn named(name: &str) -> Option<KeyDef> {
    by_key(name).or_else(|| by_code(name))
}

/// A key by its `code` value (the physical key, unshifted).
fn by_code(code: &str) -> Option<KeyDef> {
    let on = |key: &str, kc: u32, text: Option<&str>, location: u32| {
        Some(KeyDef { location, ..KeyDef::new(key, code, kc, text) })
    };
    if let Some(l) =
        code.strip_prefix("Key").filter(|l| l.len() == 1 && l.chars().all(|c| c.is_ascii_uppercase()))
    {
        return for_char(l.to_ascii_lowercase().chars().next()?);
    }
    if let Some(d) =
        code.strip_prefix("Digit").filter(|d| d.len() == 1 && d.chars().all(|c| c.is_ascii_digit()))
    {
        return for_char(d.chars().next()?);
    }
    if let Some(d) =
        code.strip_prefix("Numpad").filter(|d| d.len() == 1 && d.chars().all(|c| c.is_ascii_digit()))
    {
        let n = d.parse::<u32>().ok()?;
        return on(d, 96 + n, Some(d), 3);
    }
    match code {
        "NumpadEnter" => on("Enter", 13, Some("\r"), 3),
        "NumpadAdd" => on("+", 107, Some("+"), 3),
        "NumpadSubtract" => on("-", 109, Some("-"), 3),
        "NumpadMultiply" => on("*", 106, Some("*"), 3),
        "NumpadDivide" => on("/", 111, Some("/"), 3),
        "NumpadDecimal" => on(".", 110, Some("."), 3),
        "ShiftLeft" => on("Shift", 16, None, 1),
        "ShiftRight" => on("Shift", 16, None, 2),
        "ControlLeft" => on("Control", 17, None, 1),
        "ControlRight" => on("Control", 17, None, 2),
        "AltLeft" => on("Alt", 18, None, 1),
        "AltRight" => on("Alt", 18, None, 2),
        "MetaLeft" => on("Meta", 91, None, 1),
        "MetaRight" => on("Meta", 92, None, 2),
        "CapsLock" => on("CapsLock", 20, None, 0),
        "NumLock" => on("NumLock", 144, None, 0),
        "ScrollLock" => on("ScrollLock", 145, None, 0),
        "Pause" => on("Pause", 19, None, 0),
        "PrintScreen" => on("PrintScreen", 44, None, 0),
        "ContextMenu" => on("ContextMenu", 93, None, 0),
        _ => PUNCT.iter().find(|p| p.2 == code).and_then(|p| for_char(p.0)),
    }
}

/// A key by its `key` value (or a single character).
fn by_key(name: &str) -> Option<KeyDef> {
    let def = |key: &str, code: &str, kc: u32, text: Option<&str>| Some(KeyDef::new(key, code, kc, text));
    let left =
        |key: &str, code: &str, kc: u32| Some(KeyDef { location: 1, ..KeyDef::new(key, code, kc, None) });
    match name {
        "Enter" => def("Enter", "Enter", 13, Some("\r")),
        "Tab" => def("Tab", "Tab", 9, None),
        "Backspace" => def("Backspace", "Backspace", 8, None),
        "Delete" => def("Delete", "Delete", 46, None),
        "Escape" => def("Escape", "Escape", 27, None),
        "Space" => def(" ", "Space", 32, Some(" ")),
        "ArrowLeft" => def("ArrowLeft", "ArrowLeft", 37, None),
        "ArrowUp" => def("ArrowUp", "ArrowUp", 38, None),
        "ArrowRight" => def("ArrowRight", "ArrowRight", 39, None),
        "ArrowDown" => def("ArrowDown", "ArrowDown", 40, None),
        "Home" => def("Home", "Home", 36, None),
        "End" => def("End", "End", 35, None),
        "PageUp" => def("PageUp", "PageUp", 33, None),
        "PageDown" => def("PageDown", "PageDown", 34, None),
        "Insert" => def("Insert", "Insert", 45, None),
        "Shift" => Some(shift()),
        "Control" | "ControlOrMeta" => left("Control", "ControlLeft", 17),
        "Alt" => left("Alt", "AltLeft", 18),
        "Meta" => left("Meta", "MetaLeft", 91),
        f if f.len() >= 2
            && f.starts_with('F')
            && f[1..].parse::<u32>().is_ok_and(|n| (1..=24).contains(&n)) =>
        {
            let n: u32 = f[1..].parse().unwrap();
            def(f, f, 111 + n, None)
        }
        other => {
            let mut chars = other.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => for_char(c),
                _ => None,
            }
        }
    }
}

/// Why a key combination does not parse; its `Display` is the one-line message a caller answers with
/// (`bad_request`), listing the accepted forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ComboError {
    /// Nothing to press.
    Empty { combo: String },
    /// A part that is neither a key nor (before the last `+`) a modifier.
    UnknownKey { key: String, combo: String },
}

impl std::fmt::Display for ComboError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ComboError::Empty { combo } => write!(f, "empty key {combo:?}"),
            ComboError::UnknownKey { key, combo } => write!(
                f,
                "unknown key {key:?} in {combo:?}; use a key value (Enter, Tab, ArrowLeft, Escape, F1-F24, a, ~), \
                 a code value (KeyA-KeyZ, Digit0-Digit9, Numpad0-Numpad9, NumpadEnter, ShiftRight, Backquote), \
                 joined with modifiers (Shift, Control, Alt, Meta, ControlOrMeta): Control+Shift+KeyA"
            ),
        }
    }
}

/// Splits `Control+Shift+A` into modifiers and the key; `ControlOrMeta` is Control here (Linux).
///
/// # Errors
/// [`ComboError`] for an empty combination or a part that names no key (a modifier for the others).
pub(crate) fn parse_combo(combo: &str) -> Result<(Vec<KeyDef>, KeyDef), ComboError> {
    let mut parts: Vec<&str> = combo.split('+').collect();
    // "Control++" and "+" name the plus key.
    if combo.ends_with("++") || combo == "+" {
        parts.retain(|p| !p.is_empty());
        parts.push("+");
    }
    let (key, mods) = parts.split_last().ok_or_else(|| ComboError::Empty { combo: combo.to_string() })?;
    let unknown = |k: &str| ComboError::UnknownKey { key: k.to_string(), combo: combo.to_string() };
    let mut held = Vec::new();
    for m in mods {
        let def = named(m).filter(|d| d.modifier_bit() != 0).ok_or_else(|| unknown(m))?;
        // Each modifier goes down once, in the order given.
        if !held.iter().any(|h: &KeyDef| h.modifier_bit() == def.modifier_bit()) {
            held.push(def);
        }
    }
    let mut key = named(key).ok_or_else(|| unknown(key))?;
    let shift_held = held.iter().any(|m| m.modifier_bit() == SHIFT);
    // As Playwright's `Keyboard` (`server/input.ts`, `usKeyboardLayout.ts`): a key is sent as named,
    // without a Shift of its own (`press('+')` is `+` on `Equal`, Shift not pressed); with Shift held,
    // a key that has a shifted form on the US layout sends it (`Shift+Digit3` is `#`, keyCode 51; the
    // character code comes from its text), and a letter is the key itself (`Control+A` sends `a`,
    // `Shift+A` sends `A`).
    if key.key.len() == 1 && key.key.chars().all(|c| c.is_ascii_alphabetic()) {
        let letter = if shift_held { key.key.to_ascii_uppercase() } else { key.key.to_ascii_lowercase() };
        key = KeyDef { key: letter.clone(), text: Some(letter), ..key };
    } else if let Some(shifted) = shift_held.then(|| shifted_form(&key.code)).flatten() {
        let s = shifted.to_string();
        key = KeyDef { key: s.clone(), text: Some(s), ..key };
    }
    key.shifted = false;
    Ok((held, key))
}

/// The `Input.dispatchMouseEvent` modifier bitmask of `modifiers` (Alt 1, Control 2, Meta 4, Shift 8).
pub(crate) fn modifier_mask(modifiers: &[Modifier]) -> u32 {
    modifiers.iter().fold(0, |mask, m| {
        mask | match m {
            Modifier::Alt => ALT,
            Modifier::Control | Modifier::ControlOrMeta => CONTROL,
            Modifier::Meta => META,
            Modifier::Shift => SHIFT,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_turns_a_key_into_its_shifted_form() {
        let shifted = |k: &str| with_shift(&named(k).unwrap());
        assert_eq!((shifted("a").key, shifted("a").text), ("A".to_string(), Some("A".to_string())));
        assert_eq!(shifted("3").key, "#");
        assert_eq!(shifted("Slash").key, "?");
        assert_eq!(shifted("Enter").key, "Enter", "a key without a shifted form stays");
    }

    #[test]
    fn characters_map_to_us_keys() {
        let a = for_char('a').unwrap();
        assert_eq!((a.key.as_str(), a.code.as_str(), a.key_code, a.shifted), ("a", "KeyA", 65, false));
        let big = for_char('A').unwrap();
        assert_eq!((big.code.as_str(), big.key_code, big.shifted), ("KeyA", 65, true));
        let bang = for_char('!').unwrap();
        assert_eq!((bang.code.as_str(), bang.key_code, bang.shifted), ("Digit1", 49, true));
        let q = for_char('?').unwrap();
        assert_eq!((q.code.as_str(), q.key_code, q.shifted), ("Slash", 191, true));
        assert!(for_char('é').is_none(), "typed with Input.insertText instead");
    }

    #[test]
    fn combos_split_into_modifiers_and_key() {
        let (mods, key) = parse_combo("Control+Shift+A").unwrap();
        assert_eq!(mods.iter().map(|m| m.key.as_str()).collect::<Vec<_>>(), ["Control", "Shift"]);
        assert_eq!((key.key.as_str(), key.code.as_str(), key.shifted), ("A", "KeyA", false));
        let (_, key) = parse_combo("Control+A").unwrap();
        assert_eq!((key.key.as_str(), key.code.as_str()), ("a", "KeyA"));
        let (mods, key) = parse_combo("Control++").unwrap();
        assert_eq!((mods.len(), key.key.as_str()), (1, "+"));
        // Issue 26 §3: with Shift held, a key sends its shifted form; a key is never given a Shift of
        // its own.
        let (_, hash) = parse_combo("Shift+Digit3").unwrap();
        assert_eq!(
            (hash.key.as_str(), hash.code.as_str(), hash.key_code, hash.text.as_deref()),
            ("#", "Digit3", 51, Some("#"))
        );
        let (mods, plus) = parse_combo("+").unwrap();
        assert_eq!(
            (mods.len(), plus.key.as_str(), plus.code.as_str(), plus.shifted),
            (0, "+", "Equal", false)
        );
        let (_, plus) = parse_combo("Shift+Equal").unwrap();
        assert_eq!(plus.key, "+");
        let (_, enter) = parse_combo("Enter").unwrap();
        assert_eq!((enter.key_code, enter.text.as_deref()), (13, Some("\r")));
        assert!(parse_combo("Hyper+A").is_err());
        assert!(parse_combo("Control+Nope").is_err());
        assert_eq!(modifier_mask(&[Modifier::Alt, Modifier::Shift]), ALT | SHIFT);
        assert_eq!(named("F5").unwrap().key_code, 116);
        assert_eq!(named("F24").unwrap().key_code, 135);
    }

    #[test]
    fn code_values_name_keys_too() {
        let k = |name: &str| {
            let d = named(name).unwrap_or_else(|| panic!("{name}"));
            (d.key, d.code, d.key_code, d.location)
        };
        assert_eq!(k("Digit3"), ("3".into(), "Digit3".into(), 51, 0));
        assert_eq!(k("KeyA"), ("a".into(), "KeyA".into(), 65, 0));
        assert_eq!(k("NumpadEnter"), ("Enter".into(), "NumpadEnter".into(), 13, 3));
        assert_eq!(k("Numpad7"), ("7".into(), "Numpad7".into(), 103, 3));
        assert_eq!(k("ShiftRight"), ("Shift".into(), "ShiftRight".into(), 16, 2));
        assert_eq!(k("Backquote"), ("`".into(), "Backquote".into(), 192, 0));
        assert_eq!(k("ControlOrMeta").0, "Control");
        let (mods, key) = parse_combo("ControlOrMeta+KeyA").unwrap();
        assert_eq!((mods[0].key.as_str(), key.key.as_str()), ("Control", "a"));
        let (mods, _) = parse_combo("Shift+Shift+A").unwrap();
        assert_eq!(mods.len(), 1, "a modifier goes down once");
        let e = parse_combo("Hyper+A").unwrap_err();
        assert_eq!(e, ComboError::UnknownKey { key: "Hyper".into(), combo: "Hyper+A".into() });
        let e = e.to_string();
        assert!(e.contains("KeyA-KeyZ") && e.contains("ControlOrMeta"), "{e}");
    }
}
