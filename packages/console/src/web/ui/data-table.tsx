import type { ComponentChildren } from 'preact';

interface DataTableProps {
  /** Read by screen readers only: what the rows are. */
  caption: ComponentChildren;
  columns: readonly ComponentChildren[];
  /** Rows become blocks on a narrow screen, each cell named by its `data-label`. */
  stack?: boolean;
  /** Shown above the table, in its frame (actions on the rows). */
  lead?: ComponentChildren;
  /** Shown below the table, in its frame. */
  trail?: ComponentChildren;
  /** The rows. */
  children: ComponentChildren;
}

/** A table of records in its scrolling frame, every column headed. */
export function DataTable({ caption, columns, stack = false, lead, trail, children }: DataTableProps) {
  return (
    <div class="table-wrap">
      {lead}
      <table class={stack ? 'stack' : undefined}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th key={i} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {trail}
    </div>
  );
}
