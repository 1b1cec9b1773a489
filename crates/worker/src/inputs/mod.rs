//! Input: the mouse and the keyboard (`input`, `keys`), raw input at coordinates (`raw`), and the element actions (`interact`: click, type, fill, press, hover, select, check, drag, upload), and the handlers of the input methods that come as calls (`methods`).

pub(crate) mod input;
pub(crate) mod interact;
pub(crate) mod keys;
pub(crate) mod methods;
pub(crate) mod raw;
