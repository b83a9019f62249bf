"""A local stand-in of MTurk: the Requester API's JSON 1.1 protocol and a tiny worker site.

Real boto3 talks to it through `endpoint_url` (POST / with `X-Amz-Target:
MTurkRequesterServiceV20170117.<Operation>`), and it answers in the documented
request and response shapes, with MTurk's `RequestError` and `ServiceFault`
errors. HITs, assignments, workers, qualifications, blocks and bonuses live in
memory. Its worker side: `GET /` lists HITs, `GET /accept?hit=..&worker=..`
accepts one and frames the ExternalQuestion URL with MTurk's parameters, and
`POST /mturk/externalSubmit` receives the finished assignment, as MTurk does.

`fail_next(operation, code, times)` makes the next calls fail: ThrottlingException and
ServiceFault (retried by the client), or any other code such as RequestError (not); with
`after=True` the call acts first and its answer comes `delay` seconds late (an error, or
with code "" the normal answer): a call whose outcome the caller cannot know.

Its hazards are MTurk's: SendBonus pays again each time unless it carries a
UniqueRequestToken seen within the last 24 hours (`tokens_expire` makes it later than
that); NotifyWorkers sends again each time; GetAssignment and ListAssignmentsForHIT
know an assignment only once its worker has submitted it.
"""

from mturk.standin.server import StandInServer, serve_in_thread
from mturk.standin.shapes import RequestError
from mturk.standin.state import MTurkState

__all__ = ["MTurkState", "RequestError", "StandInServer", "serve_in_thread"]
