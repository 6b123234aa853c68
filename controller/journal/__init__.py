"""The durable journal: every event and round, hash-chained in SQLite, with recall and meters.

``store`` writes and reads the file; ``verify`` checks the chain and the meters; ``meters``
adds rounds up; ``recall`` rebuilds what happened in a round; ``retention`` prunes old rounds
while keeping the chain verifiable.
"""

from controller.journal.keys import read_hmac_key
from controller.journal.records import Journal, JournalRecord, MemoryJournal
from controller.journal.store import (
    SCHEMA_VERSION,
    JournalDamaged,
    JournalError,
    JournalFull,
    NewRecord,
    SqliteJournal,
    Sync,
)
from controller.journal.verify import (
    check_tail,
    verify_journal,
    verify_meters,
    verify_reader,
    verify_rounds,
)

__all__ = [
    "SCHEMA_VERSION",
    "JournalDamaged",
    "JournalError",
    "JournalFull",
    "Journal",
    "JournalRecord",
    "MemoryJournal",
    "NewRecord",
    "read_hmac_key",
    "verify_rounds",
    "verify_reader",
    "verify_meters",
    "SqliteJournal",
    "Sync",
    "check_tail",
    "verify_journal",
]
