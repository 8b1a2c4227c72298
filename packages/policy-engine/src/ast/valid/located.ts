import type { JSONPathQuery } from 'json-p3';
import type { SourceLocation } from '../../diagnostics';
import type { ValueType } from '../value-types';

/** Every node of the validated tree keeps where its element was written. */
export interface Located {
  readonly location: SourceLocation;
}

/** A `jsonPathQuery` as written and as compiled once at load. */
export interface ValidJsonPath {
  readonly text: string;
  readonly query: JSONPathQuery;
}

/** One variant of `Shape` per value type, so a union of them can be narrowed by `type`. */
export type PerType<Shape> = { [T in ValueType]: Shape & { readonly type: T } }[ValueType];
