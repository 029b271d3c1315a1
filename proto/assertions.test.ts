// The regex rule shared by the API, the web form and the CLI: patterns that backtrack without bound
// on a backtracking engine (backreferences, lookarounds, nested quantifiers) are refused up front.
import { describe, expect, it } from 'vitest';
import { assertionProblem, regexBacktrackingProblem, type Assertion } from './assertions';

const NESTED = 'Nested quantifiers such as (a+)+ are not allowed in a regular expression';
const BACKREF = 'Backreferences (\\1, \\k<name>) are not allowed in a regular expression';
const LOOKAROUND = 'Lookarounds ((?=, (?!, (?<=, (?<!) are not allowed in a regular expression';

describe('regexBacktrackingProblem', () => {
  it.each([
    ['(a+)+$', NESTED], ['(a*)*b', NESTED], ['^(\\w+\\s?)*$', NESTED], ['(a?b?)+', NESTED], ['((ab)*c)+', NESTED], ['(x+x+)+y', NESTED],
    ['(?:a|b+)*', NESTED], ['(\\d+\\.){2,}', NESTED], ['(.*a){12}', NESTED], ['(a{1,3}){2,}', NESTED], ['(?<w>a+)+', NESTED], ['(a+)+?', NESTED],
    ['(a)\\1', BACKREF], ['(?<x>a)\\k<x>', BACKREF],
    ['a(?=b)', LOOKAROUND], ['a(?!b)', LOOKAROUND], ['(?<=a)b', LOOKAROUND], ['(?<!a)b', LOOKAROUND],
  ])('refuses %s', (pattern, message) => {
    expect(regexBacktrackingProblem(pattern)).toBe(message);
  });

  it.each([
    '^ok$', '"status":\\s*"ok"', 'version \\d+\\.\\d+\\.\\d+', '(https?://)?example\\.com', '(\\d{1,3}\\.){3}\\d{1,3}', '^(foo|bar)+$',
    '[(a+)+]', '\\(a+\\)+', 'a{2}b{1,3}c*', '(?:ab)+', '(a+)?', '(?<word>\\w+) done', '.*error.*',
  ])('accepts %s', (pattern) => {
    expect(regexBacktrackingProblem(pattern)).toBeNull();
  });

  it('is part of the assertion rule the API applies', () => {
    const a: Assertion = { source: 'body', property: '', comparison: 'matches', target: '(a+)+$' };
    expect(assertionProblem(a, 'http')).toBe(NESTED);
    expect(assertionProblem({ ...a, target: '^ok' }, 'http')).toBeNull();
  });
});
