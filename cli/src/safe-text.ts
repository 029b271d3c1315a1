// Text from the control plane (usernames, hostnames, error messages) is data: printed raw, an
// escape sequence in it could recolour the terminal, retitle the window, hide text or write a
// clickable link. Everything a terminal would interpret is removed before printing.

// ESC-introduced sequences: CSI (ESC [ … final byte), OSC / DCS / APC / PM / SOS strings (ended
// by BEL or ESC \), and two-byte escapes. Control characters in these patterns are what they remove.
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])/g;
// The 8-bit forms of the same (C1), the other C0 controls and DEL; newline and tab are handled apart.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// Bidirectional overrides and isolates reorder what is shown ("Trojan Source").
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/** Removes terminal escape sequences, control characters and bidi overrides; keeps newlines
 *  and turns tabs into spaces. */
export function stripControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(/\t/g, ' ').replace(CONTROL, '').replace(BIDI, '');
}
