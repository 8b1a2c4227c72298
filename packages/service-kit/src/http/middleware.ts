import type { NextFunction, Request, Response } from 'express';
import { FORM_TYPES, JSON_TYPES, XML_TYPES, parseJson, readBody, requireMediaType } from './body';

/**
 * Body readers. Each checks the media type first (415), then the size (413), then the syntax
 * (400), so the client learns the first thing that is wrong.
 */
export function jsonBody(limit: number) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    requireMediaType(req, JSON_TYPES);
    req.body = parseJson(await readBody(req, limit));
    next();
  };
}

/** The raw XML text in `req.body`; the policy engine does the reading. */
export function xmlBody(limit: number) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    requireMediaType(req, XML_TYPES);
    req.body = await readBody(req, limit);
    next();
  };
}

/** application/x-www-form-urlencoded fields; a field given twice keeps every value (RFC 6749 §3.1 forbids it). */
export function formBody(limit: number) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    requireMediaType(req, FORM_TYPES);
    const text = await readBody(req, limit);
    const fields: Record<string, string[]> = {};
    for (const [name, value] of new URLSearchParams(text)) (fields[name] ??= []).push(value);
    req.body = fields;
    next();
  };
}
