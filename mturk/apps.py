from django.apps import AppConfig


class MturkConfig(AppConfig):
    name = "mturk"
    verbose_name = "Amazon Mechanical Turk"

    def ready(self):
        from crowd.providers import register
        from mturk.provider import MTurkProvider

        register(MTurkProvider())
