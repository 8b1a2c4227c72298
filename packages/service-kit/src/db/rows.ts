/**
 * The one row a statement is certain to return (`INSERT ... RETURNING`, `count(*)`, `UPDATE` of a row locked just
 * before). Its absence is a bug in the statement, not a state to handle, so it throws with the statement's name.
 */
export function onlyRow<Row>(result: { rows: readonly Row[] }, statement: string): Row {
  const [row] = result.rows;
  if (row === undefined) throw new Error(`bug: \`${statement}\` returned no row`);
  return row;
}
