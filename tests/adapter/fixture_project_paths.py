"""Where the adapter's tests find their fixture project (tests/adapter/fixture_project)
and the schema it builds into (the profile's `stream_windows` with its `+schema: adapter_fixture`)."""

from pathlib import Path

FIXTURE = Path(__file__).parent / "fixture_project"
SCHEMA = "stream_windows_adapter_fixture"
