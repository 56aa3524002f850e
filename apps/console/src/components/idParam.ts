import { useParams } from 'react-router';

/**
 * The route's `:id` (or `name`) as a positive integer, or null when it is missing or not one (the
 * page then shows its not-found state instead of calling the API with a bad id: spec-notes §5 "user id 0").
 */
export function useIdParam(name = 'id'): number | null {
  const raw = useParams()[name];
  if (raw === undefined || !/^\d{1,9}$/.test(raw)) return null;
  const id = Number(raw);
  return id > 0 ? id : null;
}
