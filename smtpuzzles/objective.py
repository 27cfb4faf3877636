"""The older name of smtpuzzles.plugin (what a puzzle plug-in imports), kept so existing plug-ins import."""
from smtpuzzles.plugin import *  # noqa: F401,F403
