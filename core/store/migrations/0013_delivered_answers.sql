ALTER TABLE "idempotency_records" ADD COLUMN "instance_id" text;--> statement-breakpoint
ALTER TABLE "settlements" ADD COLUMN "request_hash" text;--> statement-breakpoint
ALTER TABLE "settlements" ADD COLUMN "answer_status" integer;--> statement-breakpoint
ALTER TABLE "settlements" ADD COLUMN "answer_body" text;--> statement-breakpoint
CREATE INDEX "idempotency_records_claims_idx" ON "idempotency_records" USING btree ("instance_id") WHERE state = 'in_progress';--> statement-breakpoint
CREATE INDEX "settlements_answers_idx" ON "settlements" USING btree ("created_at") WHERE answer_status is not null;