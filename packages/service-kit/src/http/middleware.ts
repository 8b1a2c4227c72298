import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { ERROR_CODES } from '@custos/contracts';
import { FORM_TYPES, JSON_TYPES, XML_TYPES, parseJson, readBody, requireMediaType } from './body';
import { problems } from './problem';
import { unstorableStrings } from './storable';

/**
 * Body readers. Each checks the media type first (415), then the size (413), then the syntax
 * (400), so the client learns the first thing that is wrong. JSON bodies are stored by the routes
 * that read them, so strings PostgreSQL cannot store (U+0000, lone surrogates) are a 400 here
 * rather than a database error later.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  requireMediaType(req, JSON_TYPES);
  const body = parseJson(await readBody(req, limit));
  const unstorable = unstorableStrings(body);
  if (unstorable.length > 0) throw problems.badRequest(ERROR_CODES.invalidRequest, 'the body holds text that cannot be stored', unstorable);
  return body;
}

/** The raw XML text; the policy engine does the reading. */
export async function readXmlBody(req: IncomingMessage, limit: number): Promise<string> {
  requireMediaType(req, XML_TYPES);
  return readBody(req, limit);
}

/** application/x-www-form-urlencoded fields; a field given twice keeps every value (RFC 6749 §3.1 forbids it). */
export async function readFormBody(req: IncomingMessage, limit: number): Promise<Record<string, string[]>> {
  requireMediaType(req, FORM_TYPES);
  const text = await readBody(req, limit);
  const fields: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) (fields[name] ??= []).push(value);
  return fields;
}

/** The readers as express middleware, the body landing in `req.body`. */
const middleware =
  (read: (req: IncomingMessage, limit: number) => Promise<unknown>) =>
  (limit: number) =>
  async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    req.body = await read(req, limit);
    next();
  };

export const jsonBody = middleware(readJsonBody);
export const xmlBody = middleware(readXmlBody);
export const formBody = middleware(readFormBody);
