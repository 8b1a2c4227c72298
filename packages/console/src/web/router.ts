import { useEffect, useState } from 'preact/hooks';

/** The console's pages live in the URL's hash (`#/policies/urn:policy:acme:x`), so pap serves one page only. */
export interface Route {
  page: string;
  rest: string;
}

export function parseHash(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  const slash = path.indexOf('/');
  if (slash < 0) return { page: path === '' ? 'policies' : path, rest: '' };
  return { page: path.slice(0, slash), rest: decodeURIComponent(path.slice(slash + 1)) };
}

export const hrefOf = (page: string, rest?: string): string => `#/${page}${rest === undefined ? '' : `/${encodeURIComponent(rest)}`}`;

export function navigate(page: string, rest?: string): void {
  window.location.hash = hrefOf(page, rest);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
