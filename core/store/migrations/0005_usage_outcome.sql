-- Usage rows record how a call ended as an outcome code (ok, payment_required or a ServiceError
-- code) instead of an HTTP status; existing rows are mapped from their status.
ALTER TABLE "usage_events" ADD COLUMN "outcome" text;--> statement-breakpoint
UPDATE "usage_events" SET "outcome" = CASE "http_status"
  WHEN 200 THEN 'ok' WHEN 201 THEN 'ok' WHEN 204 THEN 'ok'
  WHEN 400 THEN 'bad_request' WHEN 401 THEN 'unauthorized' WHEN 402 THEN 'payment_required'
  WHEN 403 THEN 'forbidden' WHEN 404 THEN 'not_found' WHEN 409 THEN 'conflict'
  WHEN 413 THEN 'payload_too_large' WHEN 422 THEN 'validation_failed' WHEN 429 THEN 'rate_limited'
  WHEN 503 THEN 'unavailable' ELSE 'internal' END;--> statement-breakpoint
ALTER TABLE "usage_events" ALTER COLUMN "outcome" SET NOT NULL;
