/** A parsed HTTP answer: JSON when the body is JSON, else the text. */
export interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the service sent, field by field
  body: any;
}

/** A JSON call; XML bodies go as application/xml. */
export async function call(
  method: string,
  url: string,
  { token, json, xml, headers = {} }: { token?: string; json?: unknown; xml?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const allHeaders: Record<string, string> = { ...headers };
  if (token) allHeaders.Authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (json !== undefined) {
    allHeaders['Content-Type'] = 'application/json';
    body = JSON.stringify(json);
  } else if (xml !== undefined) {
    allHeaders['Content-Type'] = 'application/xml';
    body = xml;
  }
  const response = await fetch(url, { method, headers: allHeaders, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
