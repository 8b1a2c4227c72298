/** The PEP SDK: ask Custos for decisions and enforce them. */
export {};
