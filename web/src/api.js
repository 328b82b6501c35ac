// Calls to this broker's HTTP API. Paths are relative to the page, so the dashboard also works behind a
// proxy that serves the broker under a sub-path. With authentication on, every call carries the token the
// user gave (kept in sessionStorage, or in localStorage when they asked to be remembered).

const TOKEN_KEY = 'queen.dashboard.token';
const REQUEST_TIMEOUT_MS = 15000;

export class ApiError extends Error {
  constructor(status, message, path) {
    super(message);
    this.status = status;
    this.path = path;
  }

  // What to tell the user, with what to do about 401 and 403.
  describe() {
    if (this.status === 401) {
      return 'Authentication is on and this needs a token: paste one with the Token button (401).';
    }
    if (this.status === 403) {
      return `Refused: your token's role may not do this (403: ${this.message}).`;
    }
    if (this.status === 0) return `The broker did not answer: ${this.message}`;
    return `${this.status}: ${this.message}`;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || localStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(value, remember) {
  sessionStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(TOKEN_KEY);
  if (!value) return;
  (remember ? localStorage : sessionStorage).setItem(TOKEN_KEY, value);
}

// The claims of the token, for display only (the broker verifies it; this does not).
export function tokenClaims() {
  const parts = token().split('.');
  if (parts.length !== 3) return null;
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(base64.padEnd(base64.length + (4 - base64.length % 4) % 4, '=')));
  } catch {
    return null;
  }
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export function segment(value) {
  return encodeURIComponent(value);
}

// api('GET', 'api/v1/status', {query: {...}, body: {...}}) -> parsed JSON (null for 204); throws ApiError.
export async function api(method, path, options = {}) {
  const headers = {Accept: 'application/json'};
  const bearer = token();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  let body;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const url = path + query(options.query);
  let response;
  try {
    response = await fetch(url, {method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)});
  } catch (error) {
    throw new ApiError(0, error.message || String(error), path);
  }
  const textBody = await response.text();
  let parsed = null;
  if (textBody) {
    try {
      parsed = JSON.parse(textBody);
    } catch {
      parsed = textBody;
    }
  }
  if (!response.ok) {
    const message = parsed && typeof parsed === 'object' && parsed.error ? parsed.error : response.statusText;
    throw new ApiError(response.status, message, path);
  }
  return parsed;
}

// Like api() for reads, but a failure comes back as {error} instead of throwing, so one section of a page
// that the token may not read (or a route this broker lacks) shows its reason while the rest renders.
export async function read(path, params) {
  try {
    return {data: await api('GET', path, {query: params})};
  } catch (error) {
    if (error instanceof ApiError) return {error};
    throw error;
  }
}
