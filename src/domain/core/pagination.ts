/** Offset pagination of a list (ledger, search, session activities, ticket lists with paginate=v2). */
export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

/** The pagination of a page of `returned` rows taken at `offset` (at most `limit`) out of `total`. */
export function paginationOf(
  page: { limit: number; offset: number },
  returned: number,
  total: number,
): Pagination {
  return { total, limit: page.limit, offset: page.offset, hasMore: page.offset + returned < total };
}
