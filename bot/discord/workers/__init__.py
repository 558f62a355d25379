"""Background workers, one job each: the outbox poster (with the channel webhooks it posts
through), the deadline and reminder scheduler, and the liveness heartbeat."""
