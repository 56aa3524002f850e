/**
 * Webhooks (issue 26; docs/api.md "Webhooks"): MSP and customer endpoints, signed event deliveries
 * by the worker with retries and backoff, the delivery log, and the event producers.
 */
export {
  type AttemptOutcome,
  DELIVERIES_PER_RUN,
  DELIVERY_RETENTION_DAYS,
  type DeliveryOptions,
  MAX_ATTEMPTS,
  pruneDeliveries,
  runDeliveries,
  webhooksJob,
} from './deliver.ts';
export { type PostLimits, type PostOutcome, postWebhook } from './post.ts';
export { enqueueEvent, PRODUCE_BATCH, produceEvents, SECURITY_HIT_INTERVAL_MS } from './produce.ts';
export { DISABLE_AFTER_FAILURES, DISABLE_AFTER_MS, disableReason, RETRY_DELAYS_MS, retryDelayMs } from './schedule.ts';
export {
  createWebhook,
  deleteWebhook,
  deliveryToWire,
  eventBody,
  getWebhook,
  listDeliveries,
  listWebhooks,
  newEventId,
  redeliver,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
  type WebhookOwner,
} from './service.ts';
export { newSecret, SECRET_PREFIX, signPayload, TIMESTAMP_TOLERANCE_S, verifySignature } from './signing.ts';
