// The plain-mailbox rule (status-page subscribers): ordinary addresses pass, anything a mail library
// would read as a name, group, comment or list around a mailbox does not.
import { describe, expect, it } from 'vitest';
import { SubscribeBody, check, isMailbox } from './index';

describe('isMailbox', () => {
  it.each(['a@example.com', 'first.last+tag@mail.example.co.uk', "o'brien@example.ie", 'x_y-z@sub-domain.example', 'user@xn--e1afmkfd.xn--p1ai'])('accepts %s', (v) => {
    expect(isMailbox(v)).toBe(true);
  });
  it.each([
    'a:victim@example.com;', '"Victim" <victim@example.com>', 'victim@example.com (comment)', 'victim@example.com,x@example.com',
    '<victim@example.com>', 'victim@example.com.', 'victim@-example.com', 'vic..tim@example.com', '.victim@example.com', 'victim@localhost',
    '"quoted"@example.com', 'victim@[127.0.0.1]', `${'a'.repeat(65)}@example.com`,
  ])('refuses %s', (v) => {
    expect(isMailbox(v)).toBe(false);
  });
  it('SubscribeBody lower-cases the mailbox and answers the SPEC text otherwise', () => {
    expect(check(SubscribeBody, { email: ' Victim@Example.COM ' })).toEqual({ ok: true, data: { email: 'victim@example.com' } });
    expect(check(SubscribeBody, { email: 'a:victim@example.com;' })).toEqual({ ok: false, error: 'Please enter a valid email address' });
  });
});
