"""Every model the lab trains, by name: ``registry`` with the lesson's models, ``remedies`` with lesson 4's.
Imported together, so that whoever looks a model up (a page, a worker process) sees all of them."""

from core.models import registry, remedies  # noqa: F401
