import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/**
 * Small schema builders the wire schemas share. `oneOfValues` writes `enum` rather than TypeBox's union of
 * literals, so a wrong value gets one error naming every allowed value (api.md §5) instead of one per branch.
 */
export const oneOfValues = <const T extends string>(values: readonly T[], options: { description?: string } = {}): TUnsafe<T> =>
  Type.Unsafe<T>({ enum: [...values], ...options });

/** A string the wire promises to be one of `values` (`type` and `enum`), typed as a plain string for its readers. */
export const stringOf = (values: readonly string[], options: { description?: string } = {}): TUnsafe<string> =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...options });

/**
 * JSON Schema's `oneOf` (TypeBox's union writes `anyOf`): a value must match exactly one of the forms, so one that
 * mixes two forms is refused rather than read as either. Typed as the union of the forms.
 */
export const exactlyOneOf = <const T extends readonly TSchema[]>(forms: T): TUnsafe<Static<T[number]>> =>
  Type.Unsafe<Static<T[number]>>({ oneOf: [...forms] });

export const text = (maxLength: number, minLength = 0) => Type.String({ minLength, maxLength });

/** Any JSON object, typed as a record of unknown values. */
export const anyObject = (description: string): TUnsafe<Record<string, unknown>> =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', description, additionalProperties: true });
