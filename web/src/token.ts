// The arbiter's token, kept for this browser tab only.
const TOKEN_KEY = 'tactus.arbiterToken';

export function getToken(): string {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

export function setToken(t: string): void {
  try {
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    /* not kept */
  }
}

/** The request's headers: JSON, and the token when one is kept. */
export function headers(json: boolean): Record<string, string> {
  const out: Record<string, string> = { Accept: 'application/json' };
  if (json) out['Content-Type'] = 'application/json';
  const token = getToken();
  if (token) out.Authorization = `Bearer ${token}`;
  return out;
}
