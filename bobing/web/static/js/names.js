// What the server accepts in a name, checked before a form is sent (the server checks again).

/** Characters the server refuses in names (HTML and control characters). */
// eslint-disable-next-line no-control-regex -- the server refuses control characters too
export const BAD_NAME = /[<>&"'\u0000-\u001f\u007f]/;
