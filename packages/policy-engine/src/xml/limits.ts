/** Hard limits of policy-language.md §1, checked before the XML library sees the text. */
export const XML_LIMITS = {
  maxBytes: 5 * 1024 * 1024,
  maxDepth: 100,
  maxElements: 50_000,
  maxAttributeValueLength: 64 * 1024,
  /** No element of the language has more than a handful; libxml2's duplicate check is quadratic in the count. */
  maxAttributesPerElement: 64,
} as const;

/**
 * Options for libxmljs2. `noent: false` keeps entities unexpanded, `nonet`/`dtdload: false` forbid any load,
 * `huge: false` keeps libxml2's own size and depth limits. They are a second line only: the prescan rejects every
 * DOCTYPE first, because an entity document can abort the process during text extraction whatever the options.
 */
export const LIBXML_OPTIONS = {
  noent: false,
  nonet: true,
  dtdload: false,
  dtdvalid: false,
  huge: false,
} as const;
