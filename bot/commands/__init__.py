"""The commands shared by Telegram and the console: a chat's command in, a reply out.

Adapters only carry text, buttons and files: they turn a message into `handle_text`, a button
press into `press_button`, a file sent (a library) into `import_file` (with its size and how to
read it), and show the Reply (HTML text, rows of buttons, a file). Each handler parses its
arguments, calls one method of the application (bot/service/app.py) and renders what it
returns; it imports nothing else from bot.service (tests/test_architecture.py holds the line).

    table     the command table, /help, reading a message and running its command
    buttons   the button table: each press with its handler; a reaction read as a press
    filters   /subscribe, /similar, /preview, /list, /unsubscribe, and /export's and /import's lines
    library   /import of a library (lines or a file), /saved, /export bib|ris|csv, 🔖
    delivery  /mode, /time, /timezone, /updates, /digest, /layout, /pause, /resume
    ratings   /like, /dislike, /top
    quiet     /quiet
    chat      /start, /status, /stop, /stats
    replies   Reply, Caller, Usage, Command, and phrasings several of them share
"""

from __future__ import annotations

from bot.commands.buttons import BUTTONS, press_button, react
from bot.commands.library import import_file
from bot.commands.replies import OUT_OF_DATE, Caller, Command, Document, Reply, Usage
from bot.commands.table import COMMANDS, COMMANDS_BY_NAME, handle_text, parse_command, run_command

__all__ = [
    "BUTTONS",
    "COMMANDS",
    "COMMANDS_BY_NAME",
    "OUT_OF_DATE",
    "Caller",
    "Command",
    "Document",
    "Reply",
    "Usage",
    "handle_text",
    "import_file",
    "parse_command",
    "press_button",
    "react",
    "run_command",
]
