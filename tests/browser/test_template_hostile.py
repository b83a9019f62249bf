"""In Chromium: a hostile HIT template and hostile CSV values. The template tries to read
Parable's cookies, storage and page, to call Parable's API and another assignment's submit
as the worker, to send a forged answer through the channel and to take the top window
away; the values carry </script>, quotes and <img onerror>. None succeeds."""

import json

import pytest
from playwright.sync_api import expect

from annotation.task_types.template.creation import template_batch_create
from annotation.task_types.template.models import TemplateAnswer
from crowd.assignments import assignment_reserve_next
from crowd.batches import batch_publish
from crowd.models import Assignment
from tests.browser.template_helpers import hit_frame
from tests.factories import invite_path, worker_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOSTILE_VALUE = (
    "</script><img src=x onerror=\"window.parent.postMessage({parable: 'template', "
    "type: 'submit', fields: [['pwned', '1']]}, '*')\">\"' ${x} `"
)
TEMPLATE = """
<p id="shown" title="${text}">${text}</p>
<input type="hidden" name="probe" id="probe">
<span id="state"></span>
<script>
  var fromCsv = "${text}";
  var probe = {same: fromCsv === document.getElementById("shown").textContent};
  function attempt(name, action) {
    try { probe[name] = action(); } catch (error) { probe[name] = "refused: " + error.name; }
  }
  attempt("cookie", function () { return document.cookie; });
  attempt("storage", function () { return localStorage.getItem("parable"); });
  attempt("parent", function () { return window.parent.document.title; });
  attempt("csrf", function () {
    return window.parent.document.querySelector("[name=csrfmiddlewaretoken]").value;
  });
  attempt("top", function () {
    window.top.location.href = "https://elsewhere.example/";
    return "sent";
  });
  async function reach(name, url, options) {
    try {
      var response = await fetch(url, Object.assign({credentials: "include"}, options));
      var text = (await response.text()).slice(0, 60);
      probe[name] = response.type + " " + response.status + " " + text;
    } catch (error) { probe[name] = "refused: " + error.name; }
  }
  (async function () {
    await reach("api", "/api/batches/", {});
    await reach("other", "/tasks/a/${other}/submit/", {method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({payload: {fields: [["sentiment", "forged"]]}})});
    await reach("other_simple", "/tasks/a/${other}/submit/", {method: "POST", mode: "no-cors",
      body: JSON.stringify({payload: {fields: [["sentiment", "forged"]]}})});
    window.parent.postMessage({parable: "template", type: "submit",
      fields: [["sentiment", "forged"]], target: ${other}}, "*");
    document.getElementById("probe").value = JSON.stringify(probe);
    document.getElementById("state").textContent = "probed";
  })();
</script>
<label><input type="radio" name="sentiment" value="fine"> Fine</label>
"""


def test_a_hostile_template_reaches_nothing_of_parable_and_submits_only_its_own_answer(
    live_server, page
):
    victim = worker_create(external_id="victim")
    batch, _ = template_batch_create(
        name="Hostile", source=TEMPLATE, content=b"text,other\nplaceholder,0\n", target_per_item=2
    )
    batch = batch_publish(batch=batch)
    other = assignment_reserve_next(batch=batch, worker=victim)
    row = other.item.template_row
    row.values = {"text": HOSTILE_VALUE, "other": str(other.pk)}
    row.save()
    worker = worker_create()
    page.goto(live_server.url + invite_path(worker=worker, batch=batch))
    frame = hit_frame(page)
    expect(frame.locator("#state")).to_have_text("probed")
    expect(frame.locator("#shown")).to_have_text(HOSTILE_VALUE)  # shown as text
    expect(frame.locator("img")).to_have_count(0)
    # The template's own forged "submit" went through the channel: for the worker's own
    # assignment, once (it is the template's answer, not another assignment's).
    expect(page.locator("#status")).to_contain_text("your answer is stored")
    expect(frame.locator("input[name=sentiment]")).to_be_disabled()  # the form is done

    mine = Assignment.objects.get(worker=worker)
    assert TemplateAnswer.objects.get().assignment == mine
    assert TemplateAnswer.objects.get().answers == {"sentiment": "forged"}
    other.refresh_from_db()
    assert other.status == Assignment.Status.RESERVED
    assert page.url.startswith(live_server.url)
    probe = json.loads(frame.locator("#probe").input_value())
    assert probe["same"] is True
    for name in ("cookie", "storage", "parent", "csrf"):
        assert probe[name] == "refused: SecurityError", name
    assert probe["api"] == "refused: TypeError"  # no answer readable across origins
    assert probe["other"] == "refused: TypeError"
    assert probe["other_simple"] == "opaque 0 "  # sent blind, refused by CSRF: nothing stored
