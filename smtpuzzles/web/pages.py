"""The page's templates (Jinja2, autoescaped): the runs table, then each run with its chart, its
drawing and its audit. The live page's one script reads its own `/runs` again; the saved report
has none."""

RUNS = """\
<table id="runs-table">
<thead><tr><th>run</th><th>puzzle</th><th>instance</th><th>status</th><th>where</th><th>checks</th>
<th>solver time</th><th>open question</th><th>open for</th><th>audit</th></tr></thead>
<tbody>
{% for r in runs %}<tr class="run" id="row-{{ loop.index }}">
<td class="name"><a href="#run-{{ loop.index }}">{{ r.name }}</a></td><td>{{ r.puzzle }}</td><td>{{ r.instance }}</td>
<td class="status {{ r.status }}">{{ r.status }}</td><td>{{ r.where or r.problem }}</td><td>{{ r.checks }}</td>
<td>{{ r.solver_time }}</td><td class="question">{{ r.open_question }}</td><td>{{ r.open_age }}</td>
<td class="verdict">{{ r.verdict }}</td></tr>
{% endfor %}</tbody></table>
{% if not runs %}<p>No run folder found yet.</p>{% endif %}
{% for r in runs %}
<section class="detail" id="run-{{ loop.index }}">
<h2>{{ r.name }}</h2>
{% if r.problem %}<p class="problem">unreadable: {{ r.problem }}</p>{% else %}
<dl>
<dt>status</dt><dd class="status {{ r.status }}">{{ r.status }}
{%- if r.last_step %} (last step written {{ r.last_step }}){% endif %}</dd>
<dt>instance</dt><dd>{{ r.puzzle }}, {{ r.instance }}</dd>
<dt>value</dt><dd class="value">{{ r.value or "—" }}</dd>
<dt>where</dt><dd>{{ r.where }}</dd>
<dt>checks</dt><dd>{{ r.checks }}, {{ r.solver_time }} of solver time</dd>
{% if r.open_question %}<dt>open question</dt>
<dd class="question">{{ r.open_question }}, open {{ r.open_age }}</dd>{% endif %}
{% if r.estimate %}<dt>estimate</dt><dd>{{ r.estimate }}</dd>{% endif %}
<dt>audit</dt><dd class="verdict">{{ r.verdict or "not audited" }}
{% if r.evidence %}<ul>{% for e in r.evidence %}<li>{{ e }}</li>{% endfor %}</ul>{% endif %}
{% if r.rests_on %}rests on:<ul>{% for e in r.rests_on %}<li>{{ e }}</li>{% endfor %}</ul>{% endif %}</dd>
</dl>
<div class="pictures">
{% if r.chart %}<img class="chart" src="{{ r.chart }}" alt="{{ r.chart_label }} over solver time, {{ r.name }}">{% endif %}
{% if r.drawing %}<img class="drawing" src="{{ r.drawing }}"
 alt="the drawing of {{ r.name }}: {{ r.instance }}, {{ r.status }}">{% endif %}
</div>
{% endif %}
</section>
{% endfor %}
"""

PAGE = """\
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; \
{% if live %}script-src 'unsafe-inline'; connect-src 'self'{% endif %}">
<title>smtpuzzles: runs under {{ folder }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { text-align: left; padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; vertical-align: top; }
td.question { max-width: 28em; overflow-wrap: anywhere; }
.status.optimal, .status.solved, .status.infeasible { color: #176; font-weight: bold; }
.status.running { color: #15a; font-weight: bold; }
.status.unknown, .status.interrupted { color: #a60; font-weight: bold; }
.status.unreadable, .problem { color: #b00; font-weight: bold; }
section.detail { border-top: 2px solid #ccc; margin-top: 1.5em; }
dl { display: grid; grid-template-columns: 9em 1fr; gap: 0.2em 1em; }
dd { margin: 0; overflow-wrap: anywhere; } dd.value { font-family: monospace; }
.pictures img { max-width: 48%; margin-right: 1%; vertical-align: top; border: 1px solid #eee; }
</style></head>
<body>
<h1>runs under {{ folder }}</h1>
<p id="stamp">{% if live %}read again every {{ poll }} s; last read {{ made }}{% else %}saved {{ made }}{% endif %}.
Times are solver time; the audit is the default one: the ledger read and checked, no solver.</p>
<div id="runs">{% include "runs" %}</div>
{% if live %}<script>
// The runs are read again and replaced whole: the server escapes every string in them.
async function again() {
  try {
    const answer = await fetch("runs", {cache: "no-store"});
    if (answer.ok) {
      document.getElementById("runs").innerHTML = await answer.text();
      const stamp = "read again every {{ poll }} s; last read " + new Date().toLocaleString() + ".";
      document.getElementById("stamp").textContent = stamp;
    }
  } catch (e) { /* the server stopped: keep what is shown */ }
}
setInterval(again, {{ poll * 1000 }});
</script>{% endif %}
</body></html>
"""
