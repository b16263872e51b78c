CREATE TABLE "audit_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain" text NOT NULL,
	"seq" bigint NOT NULL,
	"key_id" text,
	"at" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"action" text NOT NULL,
	"outcome" text NOT NULL,
	"subject" text,
	"subject_sha256" text,
	"paid_with" text,
	"amount_micros" bigint,
	"receipt_id" text,
	"receipt" text,
	"detail" jsonb,
	"field_digests" text NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_chain_seq_idx" ON "audit_events" USING btree ("chain","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_receipt_idx" ON "audit_events" USING btree ("receipt_id");--> statement-breakpoint
CREATE INDEX "audit_events_key_at_idx" ON "audit_events" USING btree ("key_id","at");--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_events_subject_idx" ON "audit_events" USING btree ("chain","subject_sha256");