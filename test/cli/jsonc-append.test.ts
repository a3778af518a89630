import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { addProperty, appendToArray } from '../../src/cli/jsonc-append.js';

describe('appendToArray', () => {
  it.each([
    ['one line', '{ "plugin": ["a"] }', '{ "plugin": ["a", "X"] }'],
    ['one line, trailing comma', '{ "plugin": ["a",] }', '{ "plugin": ["a", "X",] }'],
    ['empty', '{ "plugin": [] }', '{ "plugin": ["X"] }'],
    ['one per line', '{\n  "plugin": [\n    "a"\n  ]\n}', '{\n  "plugin": [\n    "a",\n    "X"\n  ]\n}'],
    ['comment, no trailing comma', '{\n  "plugin": [\n    "a" // c\n  ]\n}', '{\n  "plugin": [\n    "a", // c\n    "X"\n  ]\n}'],
    ['comment after trailing comma', '{\n  "plugin": [\n    "a", // c\n  ],\n}', '{\n  "plugin": [\n    "a", // c\n    "X",\n  ],\n}'],
    [
      'tuple kept as written',
      '{\n\t"plugin": [\n\t\t["b", {}], /* d */\n\t]\n}',
      '{\n\t"plugin": [\n\t\t["b", {}], /* d */\n\t\t"X",\n\t]\n}',
    ],
    ['comment holding a comma', '{\n  "plugin": [\n    "a" /* x, y */\n  ]\n}', '{\n  "plugin": [\n    "a", /* x, y */\n    "X"\n  ]\n}'],
    ['bracket on the last line', '{\n  "plugin": [\n    "a"]\n}', '{\n  "plugin": [\n    "a",\n    "X"]\n}'],
    ['CRLF', '{\r\n  "plugin": [\r\n    "a"\r\n  ]\r\n}', '{\r\n  "plugin": [\r\n    "a",\r\n    "X"\r\n  ]\r\n}'],
  ])('should append to %s without touching the rest', (_name, text, expected) => {
    const result = appendToArray(text, 'plugin', 'X')!;
    expect(result).toBe(expected);
    expect(parse(result, [], { allowTrailingComma: true }).plugin.at(-1)).toBe('X');
  });

  it('should say when the key is not an array', () => {
    expect(appendToArray('{ "plugin": "a" }', 'plugin', 'X')).toBeUndefined();
    expect(appendToArray('{}', 'plugin', 'X')).toBeUndefined();
  });
});

describe('addProperty', () => {
  it.each([
    ['empty', '{}', '{ "plugin": ["X"] }'],
    ['one line', '{ "a": 1 }', '{ "a": 1, "plugin": ["X"] }'],
    ['commented', '// top\n{\n  "nested": { "k": [1, 2] } // keep\n}\n', '// top\n{\n  "nested": { "k": [1, 2] }, // keep\n  "plugin": ["X"]\n}\n'],
    ['trailing comma', '{\n    "model": "x", // c\n}\n', '{\n    "model": "x", // c\n    "plugin": ["X"],\n}\n'],
  ])('should add to %s without touching the rest', (_name, text, expected) => {
    expect(addProperty(text, 'plugin', ['X'])).toBe(expected);
  });
});
