CREATE TABLE "key_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"operation" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"instance_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"captured_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "key_reservations_instance_idx" ON "key_reservations" USING btree ("instance_id");