import type { QueryParams } from './client.ts';

/**
 * The query-key factory (STYLE.md "Anti-patterns" 4): every server-state key is built here, from
 * the broadest (`all`) to the narrowest, so a mutation invalidates exactly what it changed.
 */
export const queryKeys = {
  msps: {
    all: ['msps'] as const,
    list: (params: QueryParams) => ['msps', 'list', params] as const,
    detail: (id: number) => ['msps', 'detail', id] as const,
  },
  customers: {
    all: ['customers'] as const,
    list: (mspId: number, params: QueryParams) => ['customers', 'list', mspId, params] as const,
    detail: (id: number) => ['customers', 'detail', id] as const,
  },
  policies: {
    all: ['policies'] as const,
    lists: (userId: number) => ['policies', 'list', userId] as const,
    list: (userId: number, params: QueryParams) => ['policies', 'list', userId, params] as const,
    detail: (id: number) => ['policies', 'detail', id] as const,
    categories: (id: number) => ['policies', 'categories', id] as const,
  },
  locations: {
    all: ['locations'] as const,
    list: (userId: number) => ['locations', 'list', userId] as const,
  },
  stats: {
    all: ['stats'] as const,
    overview: (userId: number, date: string) => ['stats', 'overview', userId, date] as const,
    traffic: (userId: number, day: string) => ['stats', 'traffic', userId, day] as const,
  },
} as const;
