"""A fake OpenAI-compatible server for the hardening flow tests, answering by stage.

What it answers is stated here: route A the scripted reply of :mod:`tests.hardening.support`,
the filter writer a library filter, adjudication nothing disputed, answer boxes no box;
``mode`` switches it to failing (HTTP 500), echoing (every reply holds ``echo``) or ``prose``
(route A's reply a 200 whose text is not JSON). None of it
is a live model result.
"""

from __future__ import annotations

import json

from tasks.read.route_b import library_filters
from tests.fakes import openai_api
from tests.fakes.server import Recorded, Step
from tests.hardening.support import route_a_reply


def stage_of(text: str) -> str:
    if "You turn a lecturer's problem sheet" in text:
        return "route-a"
    if "Two independent readings" in text:
        return "adjudication"
    if "pandoc Lua filter" in text:
        return "filter"
    if "You propose the answer boxes" in text:
        return "areas"
    return "other"


class StageServer(openai_api.FakeOpenAI):
    def __init__(self, mode: str = "ok", echo: str = ""):
        self.mode = mode
        self.echo = echo
        self.stages: list[str] = []
        super().__init__(default=self.answer, lifetime=600)

    def answer(self, rec: Recorded) -> Step:
        stage = stage_of(json.dumps(rec.body))
        self.stages.append(stage)
        if self.mode == "fail":
            return openai_api.error(500, "server on fire")
        if self.mode == "plain":
            return Step(status=200, body=f"you sent {self.echo}", content_type="text/plain")
        if self.mode == "echo":
            return openai_api.ok(openai_api.completion(f"your key is {self.echo}", model="local"))
        if self.mode == "prose" and stage == "route-a":  # a 200 reply whose text is not JSON
            return openai_api.ok(openai_api.completion("Here is the set you asked for, in words.", model="local"))
        if self.mode == "slow":
            return Step(status=200, body=openai_api.completion("{}", model="local"), delay=120)
        text = {"route-a": route_a_reply(), "filter": library_filters()["latex"],
                "adjudication": json.dumps({"verdicts": []}), "areas": json.dumps({"boxes": []})}.get(stage, "{}")
        return openai_api.ok(openai_api.completion(text, model="local"))

    def count(self, stage: str) -> int:
        return self.stages.count(stage)
