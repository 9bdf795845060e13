"""`--since`, `--until`, `--timezone`, `--project`: which sessions a sweep scores, by when and where
they ran (core.Whereabouts, asked of each session's reader before anything is scored); and `--by`'s
group of a session.

A date is a day in the time zone (the local one unless `--timezone`): `--since` from its first
moment, `--until` to its last. `today`, `yesterday` and `Nd` (the first of the last N days, today the
Nth: `--since 7d` is the last week) name days too; an ISO 8601 time (`2026-02-23T14:00`, `...Z`) is that moment. A session whose log names
no start time is kept whatever the window (its `started` is null) and counted on stderr.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from typing import Optional

import attrs

from citeledger.core.errors import UserError

BY = ("day", "project", "model")
UNDATED = "(no start time)"
UNKNOWN = "(not logged)"
MAX_DAYS = 100_000  # `Nd`: an integer from 1 to this many days
_DAYS = re.compile(r"([0-9]{1,6})d")
_COMPACT = re.compile(r"([0-9]{4})([0-9]{2})([0-9]{2})")


def add_window_options(parser) -> None:
    parser.add_argument("--since", metavar="WHEN",
                        help="only sessions started on or after WHEN: a date (2026-02-23 or 20260223), today, "
                        "yesterday, Nd (the last N days, today included, N from 1 to 100,000) or an ISO 8601 time")
    parser.add_argument("--until", metavar="WHEN", help="only sessions started on or before WHEN (a date: to its end)")
    parser.add_argument("--timezone", metavar="ZONE",
                        help="the time zone of --since, --until and --by day (an IANA name such as Europe/Paris, "
                        "or UTC; default: this machine's)")
    parser.add_argument("--project", metavar="PATH",
                        help="only sessions whose project (their first working directory, or the folder the agent "
                        "filed them under) is PATH, is under PATH, or ends with PATH's last folders")


@attrs.frozen
class Window:
    since: Optional[dt.datetime] = None
    until: Optional[dt.datetime] = None  # exclusive
    project: Optional[str] = None
    zone: Optional[dt.tzinfo] = None  # None: local
    said: str = ""  # the options as given, for the one line when nothing matches

    @property
    def active(self) -> bool:
        return self.since is not None or self.until is not None or self.project is not None

    def keeps(self, where) -> bool:
        """In the window and the project; a session with no start time is kept (counted apart)."""
        if self.project is not None and not project_matches(where.project if where else None, self.project):
            return False
        moment = started_at(where.started if where else None)
        if moment is None:
            return True
        return (self.since is None or moment >= self.since) and (self.until is None or moment < self.until)


def zone_of(name: Optional[str]) -> Optional[dt.tzinfo]:
    if name is None:
        return None
    if name.upper() in ("UTC", "Z"):
        return dt.timezone.utc
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UserError(f"--timezone {name}: not a time zone (an IANA name such as Europe/Paris, or UTC)") from None


def _localized(moment: dt.datetime, zone) -> dt.datetime:
    if moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=zone) if zone is not None else moment.astimezone()


def _today(zone) -> dt.date:
    return dt.datetime.now(zone).date() if zone is not None else dt.date.today()


def when(text: str, zone, option: str, end: bool) -> dt.datetime:
    """A WHEN as an aware moment: a day's first moment (`end`: the next day's, exclusive)."""
    word = text.strip().lower()
    day = None
    if word in ("today", "yesterday"):
        day = _today(zone) - dt.timedelta(days=word == "yesterday")
    elif _DAYS.fullmatch(word):
        n = int(_DAYS.fullmatch(word).group(1))
        if not 1 <= n <= MAX_DAYS:
            raise UserError(f"{option} {text}: out of range (Nd: N from 1 to {MAX_DAYS:,})")
        day = _today(zone) - dt.timedelta(days=n - 1)  # the first of the last N days
    else:
        compact = _COMPACT.fullmatch(word)
        try:
            if compact:
                day = dt.date(*(int(g) for g in compact.groups()))
            elif len(word) == 10:
                day = dt.date.fromisoformat(word)
            else:
                return _localized(iso_moment(text.strip()), zone)
        except ValueError:
            raise UserError(f"{option} {text}: not a date or time (2026-02-23, 20260223, today, yesterday, 7d, "
                            "or an ISO 8601 time such as 2026-02-23T14:00)") from None
    if end:
        day += dt.timedelta(days=1)
    return _localized(dt.datetime(day.year, day.month, day.day), zone)


def window_of(args) -> Window:
    """The window the options give (usage errors before anything is read)."""
    zone = zone_of(getattr(args, "timezone", None))
    since = until = None
    said = []
    if getattr(args, "since", None) is not None:
        since = when(args.since, zone, "--since", end=False)
        said.append(f"--since {args.since}")
    if getattr(args, "until", None) is not None:
        raw = args.until.strip()
        until = when(raw, zone, "--until", end=len(raw) <= 10 or _DAYS.fullmatch(raw.lower()) is not None)
        if len(raw) > 10 and not _DAYS.fullmatch(raw.lower()):
            until += dt.timedelta(microseconds=1)  # a moment given: on or before it
        said.append(f"--until {args.until}")
    project = getattr(args, "project", None)
    if project is not None:
        said.append(f"--project {project}")
    return Window(since=since, until=until, project=project, zone=zone, said=" ".join(said))


def started_at(started: Optional[str]) -> Optional[dt.datetime]:
    """A logged start time as an aware moment (a naive one read as UTC); None if none or unreadable."""
    if not started:
        return None
    try:
        moment = iso_moment(started)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)


_FRACTION = re.compile(r"(T\d\d:\d\d:\d\d)\.(\d+)")


def iso_moment(text: str) -> dt.datetime:
    """An ISO 8601 time as every supported Python reads it (3.10's fromisoformat takes neither
    a `Z` nor a fraction of other than 3 or 6 digits): `Z` is `+00:00`, the fraction made 6
    digits (cut or padded). A ValueError when it is no such time."""
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    text = _FRACTION.sub(lambda m: f"{m.group(1)}.{m.group(2)[:6].ljust(6, '0')}", text, count=1)
    return dt.datetime.fromisoformat(text)


def project_matches(project: Optional[str], wanted: str) -> bool:
    if not project:
        return False
    have = project.rstrip("/\\") or project
    want = wanted.rstrip("/\\") or wanted
    if os.path.isdir(want):
        want = os.path.abspath(want)
    return have == want or have.startswith(want.rstrip("/") + "/") or have.endswith("/" + want.strip("/"))


def group_of(where, by: str, zone) -> str:
    """A session's group under `--by`: its start day (in the zone), project or model."""
    if by == "day":
        moment = started_at(where.started if where else None)
        if moment is None:
            return UNDATED
        return (moment.astimezone(zone) if zone is not None else moment.astimezone()).date().isoformat()
    value = getattr(where, by, None) if where else None
    return value or UNKNOWN


def within(refs: list, window: Window, warnings=()) -> list:
    """The sessions in the window, each with its whereabouts asked of its reader; sessions with no
    start time are kept and counted in a note. None in the window: one line on stderr, and []."""
    import sys

    from citeledger.core.plugins import readers
    from citeledger.core.reader import whereabouts_of

    known = readers()
    kept, undated = [], 0
    for ref in refs:
        cls = known.get(ref.reader)
        where = ref.whereabouts or (whereabouts_of(cls(), ref.files) if cls is not None else None)
        ref = attrs.evolve(ref, whereabouts=where)
        if window.keeps(where):
            kept.append(ref)
            undated += started_at(where.started if where else None) is None
    timed = window.since is not None or window.until is not None
    if not kept or timed and undated == len(kept):
        also = f", {undated} of them with no start time" if undated else ""
        print(f"citeledger: no session matches {window.said} ({len(refs)} found{also})", file=sys.stderr)
        return []
    if timed and undated:
        print(f"citeledger: note: {undated} session(s) log no start time: kept whatever --since/--until "
              "(their `started` is null)", file=sys.stderr)
    return kept
