import { Type, type TUnsafe } from '@sinclair/typebox';

/**
 * Small schema builders the wire schemas share. `oneOfValues` writes `enum` rather than TypeBox's union of
 * literals, so a wrong value gets one error naming every allowed value (api.md §5) instead of one per branch.
 */
export const oneOfValues = <const T extends string>(values: readonly T[]): TUnsafe<T> => Type.Unsafe<T>({ enum: [...values] });

export const text = (maxLength: number, minLength = 0) => Type.String({ minLength, maxLength });
