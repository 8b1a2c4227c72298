/**
 * The version of the JSON form of a checked policy (`serializeValidPolicy`). Bump it whenever the shape changes in
 * a way an older reader would misread: a reader refuses other versions (`supportsPolicyTree`), and the pdp then
 * compiles the XML instead, so old and new senders and receivers can run side by side.
 */
export const POLICY_TREE_VERSION = 1;

/**
 * The JSON form of a validated policy: the `ValidPolicy` without source locations (compile reads none; pap, which
 * reads the XML, reports the located problems), with what JSON cannot carry kept as text or ids and rebuilt on
 * reading — regexes and JSONPath queries as their source, weekday sets as sorted lists, a variable's declaration as
 * the declaration's name, an unbounded `maxOccurrences` as null. Opaque to everyone but the engine. A type alias,
 * not an interface, so that it is a `Record<string, unknown>`: the JSON object pap stores and ships, without a cast.
 */
export type PolicyTree = {
  readonly version: number;
  readonly policy: unknown;
};
