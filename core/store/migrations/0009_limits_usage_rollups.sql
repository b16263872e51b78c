CREATE TABLE "rate_limit_counters" (
	"subject" text PRIMARY KEY NOT NULL,
	"minute_no" bigint NOT NULL,
	"minute_count" integer NOT NULL,
	"hour_no" bigint NOT NULL,
	"hour_counts" integer[] NOT NULL,
	"month_no" integer NOT NULL,
	"month_count" integer NOT NULL,
	"per_minute" integer NOT NULL,
	"per_day" integer NOT NULL,
	"per_month" integer NOT NULL,
	"requested" integer NOT NULL,
	"granted" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_rollups" (
	"key_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"operation" text NOT NULL,
	"outcome" text NOT NULL,
	"calls" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	"latency_ms_sum" bigint NOT NULL,
	CONSTRAINT "usage_rollups_key_id_hour_operation_outcome_pk" PRIMARY KEY("key_id","hour","operation","outcome")
);
