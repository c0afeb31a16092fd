"use client";

import { useMemo, useState } from "react";
import { DataTable, type Column, type DataTableProps, type SortState, type SortValue } from "./data-table";

export type { Column } from "./data-table";

const compare = (x: SortValue, y: SortValue) => (x < y ? -1 : x > y ? 1 : 0);

/** A DataTable whose columns with a sortValue sort the rows when their header is clicked. */
export function SortableTable<Row>({
  rows,
  columns,
  initialSort,
  tieBreak,
  ...table
}: Omit<DataTableProps<Row>, "sort" | "onSort"> & {
  initialSort?: SortState;
  /** Orders rows whose sort values are equal, whichever the direction. */
  tieBreak?: (a: Row, b: Row) => number;
}) {
  const [sort, setSort] = useState(initialSort);
  const sorted = useMemo(() => {
    const value = columns.find((c) => c.id === sort?.column)?.sortValue;
    if (!sort || !value) return rows;
    const dir = sort.direction === "ascending" ? 1 : -1;
    return [...rows].sort((a, b) => compare(value(a), value(b)) * dir || (tieBreak?.(a, b) ?? 0));
  }, [rows, columns, sort, tieBreak]);

  const toggle = (c: Column<Row>) =>
    setSort((s) =>
      s?.column === c.id
        ? { column: c.id, direction: s.direction === "ascending" ? "descending" : "ascending" }
        : { column: c.id, direction: c.descendingFirst ? "descending" : "ascending" },
    );

  return <DataTable {...table} columns={columns} rows={sorted} sort={sort} onSort={toggle} />;
}
