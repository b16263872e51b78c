CREATE TABLE "payment_nonces" (
	"network" text NOT NULL,
	"payer" text NOT NULL,
	"nonce" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_nonces_network_payer_nonce_pk" PRIMARY KEY("network","payer","nonce")
);
--> statement-breakpoint
CREATE TABLE "service_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settlements" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"status" text NOT NULL,
	"phase" text NOT NULL,
	"exhausted" boolean DEFAULT false NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"network" text NOT NULL,
	"payer" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"operation" text NOT NULL,
	"key_id" text,
	"instance_id" text NOT NULL,
	"payment" jsonb NOT NULL,
	"transaction" text,
	"fallback" boolean DEFAULT false NOT NULL,
	"last_error" text,
	"valid_before" timestamp with time zone,
	"next_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "settlements_payment_id_unique" UNIQUE("payment_id")
);
--> statement-breakpoint
CREATE INDEX "payment_nonces_expires_idx" ON "payment_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "settlements_status_next_idx" ON "settlements" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "settlements_key_idx" ON "settlements" USING btree ("key_id");