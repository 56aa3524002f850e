/** Category feeds (docs/api.md "Category feeds"): hosts, plain and AdBlock lists besides UT1, fetched on a schedule. */

export {
  createFeed,
  deleteFeed,
  FEED_ROUND_MS,
  type FeedRunOptions,
  feedDependants,
  feedsJob,
  getFeed,
  listFeeds,
  runDueFeeds,
  runFeed,
  updateFeed,
  uploadFeed,
} from './service.ts';
