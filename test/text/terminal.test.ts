import { describe, expect, it } from 'vitest';
import { forTerminal, forTerminalLine } from '../../src/text/terminal.js';

/** Whether `text` holds a character a terminal would act on (other than a newline). */
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('forTerminal', () => {
  it('should show C0 controls as their control pictures', () => {
    expect(forTerminal('\x1b[31mred\x1b[0m')).toBe('␛[31mred␛[0m');
    expect(forTerminal('a\x00b\x07c\x08d')).toBe('a␀b␇c␈d');
    expect(forTerminal('\x1b]0;pwned\x07')).toBe('␛]0;pwned␇');
    expect(forTerminal('over\rwrite')).toBe('over␍write');
    expect(forTerminal('\x0b\x0c\x1f')).toBe('␋␌␟');
  });

  it('should show DEL as its control picture', () => {
    expect(forTerminal('a\x7fb')).toBe('a␡b');
  });

  it('should show C1 controls by their code point', () => {
    expect(forTerminal('\u009b31mred')).toBe('[U+009B]31mred');
    expect(forTerminal('\u0080\u0085\u009d\u009f')).toBe('[U+0080][U+0085][U+009D][U+009F]');
  });

  it('should show bidi overrides, embeddings, isolates and marks by their code point', () => {
    expect(forTerminal('abc\u202Eevil')).toBe('abc[U+202E]evil');
    expect(forTerminal('\u202A\u202B\u202C\u202D')).toBe('[U+202A][U+202B][U+202C][U+202D]');
    expect(forTerminal('\u2066\u2067\u2068\u2069')).toBe('[U+2066][U+2067][U+2068][U+2069]');
    expect(forTerminal('\u200E\u200F\u061C')).toBe('[U+200E][U+200F][U+061C]');
  });

  it('should keep newlines, turn CR LF into a newline and a tab into two spaces', () => {
    expect(forTerminal('one\ntwo\r\nthree')).toBe('one\ntwo\nthree');
    expect(forTerminal('a\tb')).toBe('a  b');
  });

  it('should leave printable text alone, other scripts and emoji included', () => {
    const text = 'Add a greeting — héllo, שלום, مرحبا, 你好 🐋 [U+0041] ␛';
    expect(forTerminal(text)).toBe(text);
  });

  it('should leave nothing a terminal acts on, and change nothing when applied twice', () => {
    let every = '';
    for (let code = 0; code <= 0x9f; code++) every += String.fromCharCode(code);
    every += '\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';
    const once = forTerminal(every);
    expect(once).not.toMatch(UNSAFE);
    expect(forTerminal(once)).toBe(once);
  });
});

describe('forTerminalLine', () => {
  it('should put the text on one line, newlines as spaces', () => {
    expect(forTerminalLine('one\ntwo\r\nthree\x1b[2J')).toBe('one two three␛[2J');
  });
});
