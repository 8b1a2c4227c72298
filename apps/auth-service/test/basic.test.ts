import { basicAuthorization, parseAuthorization } from '../src/oauth/basic';
import { OAuthError } from '../src/oauth/errors';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function errorOf(header: string): OAuthError {
  try {
    parseAuthorization(header);
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error(`\`${header}\` was accepted`);
}

describe('HTTP Basic client credentials (RFC 6749 §2.3.1)', () => {
  it('reads plain credentials', () => {
    expect(parseAuthorization(`Basic ${b64('client-1:secret')}`)).toEqual({ kind: 'basic', clientId: 'client-1', clientSecret: 'secret' });
  });

  it('form-urlencoding is undone on both parts', () => {
    expect(parseAuthorization(`Basic ${b64('a%3Ab+c:p%40ss+word%2B%25')}`)).toEqual({
      kind: 'basic',
      clientId: 'a:b c',
      clientSecret: 'p@ss word+%',
    });
  });

  it('splits at the first colon; the secret may contain more', () => {
    expect(parseAuthorization(`Basic ${b64('id:se:cr:et')}`)).toEqual({ kind: 'basic', clientId: 'id', clientSecret: 'se:cr:et' });
  });

  it('accepts any case of the scheme, extra spaces and missing padding', () => {
    const encoded = b64('id:s').replace(/=+$/, '');
    expect(parseAuthorization(`bAsIc   ${encoded}  `)).toEqual({ kind: 'basic', clientId: 'id', clientSecret: 's' });
  });

  it('round-trips what basicAuthorization encodes, whatever the characters', () => {
    for (const [id, secret] of [
      ['plain', 'secret'],
      ['with space', 'p+l:u%s&='],
      ['ünïcödé', '秘密'],
      ['id', ''],
    ] as const) {
      expect(parseAuthorization(basicAuthorization(id, secret))).toEqual({ kind: 'basic', clientId: id, clientSecret: secret });
    }
  });

  it('reports no header and other schemes', () => {
    expect(parseAuthorization(undefined)).toEqual({ kind: 'none' });
    expect(parseAuthorization('  ')).toEqual({ kind: 'none' });
    expect(parseAuthorization('Bearer abc.def.ghi')).toEqual({ kind: 'unsupported', scheme: 'Bearer' });
  });

  it.each([
    ['no credentials', 'Basic'],
    ['not base64', 'Basic ***'],
    ['impossible base64 length', 'Basic abcde'],
    ['no colon', `Basic ${b64('just-an-id')}`],
    ['empty client id', `Basic ${b64(':secret')}`],
    ['bad percent escape in id', `Basic ${b64('a%zz:secret')}`],
    ['bad percent escape in secret', `Basic ${b64('id:%E0%A4%A')}`],
    ['garbage scheme', '::: nonsense'],
  ])('refuses %s with invalid_request', (_what, header) => {
    const error = errorOf(header);
    expect(error.status).toBe(400);
    expect(error.error).toBe('invalid_request');
  });
});
