"""The floor side of the link: every table's journal copied through NATS JetStream into one
PostgreSQL store (docs/floor.md).

``messages`` turns journal records into messages (hidden cards left out); ``forwarder`` publishes
a table's journal; ``migrate`` keeps the store's schema; ``ingest`` writes messages into the
store; ``store`` reads it for pit views; ``report`` adds it up; ``servers`` starts a local NATS
and PostgreSQL. Nothing here imports ``drivers``.
"""
