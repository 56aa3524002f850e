/**
 * Delay before a search text is sent, ms: one request per pause in typing, not per key. Its own
 * module so that the header's switchers take it without the whole table component
 * (bench/README.md "Console first load").
 */
export const SEARCH_DEBOUNCE_MS = 300;
