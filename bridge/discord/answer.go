package discord

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tablewise/tablewise/charts"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/chartspec"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/fault"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tools"
)

const (
	// providerSQL marks a bundle made from /sql: no model, no planner.
	providerSQL = "sql"
	// sendTimeout bounds posting one reply, however the question ended.
	sendTimeout = 2 * time.Minute
	// csvMaxRows and csvTimeout bound the CSV export of a result.
	csvMaxRows = 1_000_000
	csvTimeout = 30 * time.Second
	// chartQueryTimeout bounds reading the rows of a chart.
	chartQueryTimeout = 30 * time.Second
	// payloadMargin is room kept in the upload limit for the message's
	// own JSON and multipart framing.
	payloadMargin = 64 << 10
	// chart size in pixels.
	chartWidth, chartHeight = 1200, 800
)

// runJob works one job and replies. ctx ends when shutdown cuts the work
// in flight.
func (b *Bot) runJob(ctx context.Context, j *job) {
	sendCtx, cancelSend := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	defer cancelSend()
	defer func() {
		if p := recover(); p != nil {
			j.log.Error("panic while answering", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if _, err := j.target.send(sendCtx, []part{{content: "Something went wrong while answering (ref " + j.id + ")."}}); err != nil {
				j.log.Warn("send", "err", err)
			}
		}
	}()
	if j.resolve != nil && !j.resolve(j) {
		j.log.Debug("dropped: it continues nothing and asks nothing")
		return
	}
	if j.kind == sayJob {
		if _, err := j.target.send(sendCtx, []part{{content: clip(j.text, maxContent)}}); err != nil {
			j.log.Warn("send", "err", err)
		}
		return
	}
	start := time.Now()
	if ctx.Err() != nil {
		b.reply(sendCtx, j, start, view{body: []block{prose(cutText)}}, nil, "cut")
		return
	}
	deadline := b.opt.Deadline
	if j.tokenLeft != nil {
		// A slash command's answer must arrive while its token lasts.
		deadline = min(deadline, j.tokenLeft()-5*time.Second)
	}
	qctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	stop := j.target.working(qctx)
	v, keep, status := b.answer(qctx, j)
	stop()
	if finished := status == string(answer.StatusAnswered) || status == string(answer.StatusClarify) || status == "database menu"; !finished {
		switch {
		case ctx.Err() != nil:
			v, keep, status = view{body: []block{prose(cutText)}}, nil, "cut"
		case errors.Is(qctx.Err(), context.DeadlineExceeded):
			v, keep, status = view{body: []block{prose(fmt.Sprintf("⏱ This took longer than the %s limit and was stopped. Try a narrower question.", durationText(deadline)))}}, nil, "deadline"
		}
	}
	b.reply(sendCtx, j, start, v, keep, status)
}

// durationText is a duration for people: 300ms, 45s, 2m, 1h30m.
func durationText(d time.Duration) string {
	if d >= time.Second {
		d = d.Round(time.Second)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

const cutText = "⏹ The bot is shutting down and this question was cut before its answer was ready. Please ask again once it is back."

// reply sends v and records which messages carry keep.
func (b *Bot) reply(ctx context.Context, j *job, start time.Time, v view, keep *pending, status string) {
	parts := v.messages()
	ids, err := j.target.send(ctx, parts)
	if keep != nil && len(ids) > 0 {
		b.mem.carried(keep.nonce, ids)
	}
	files := 0
	for _, p := range parts {
		files += len(p.files)
	}
	if err != nil {
		j.log.Error("reply not delivered", "status", status, "err", err, "messages_sent", len(ids))
		return
	}
	j.log.Info("replied", "status", status, "messages", len(ids), "files", files, "elapsed", time.Since(start).Round(time.Millisecond))
}

// answer works out the reply to a question or SQL: the database, the
// bundle, its rendering. keep is the menu or open question it carries.
func (b *Bot) answer(ctx context.Context, j *job) (v view, keep *pending, status string) {
	if j.checkChannel && !b.channelAllowed(ctx, j.conv) {
		j.log.Info("not answered: the channel is not on the allow-list")
		return view{body: []block{prose("I don't answer in this channel.")}}, nil, "not allowed"
	}
	d, menu, keep := b.choose(ctx, j)
	if menu != nil {
		return *menu, keep, "database menu"
	}
	var bd *answer.Bundle
	if j.kind == sqlJob {
		bd = b.runSQL(ctx, d, j.text)
	} else {
		key := "discord:" + j.conv
		if len(b.dbs) > 1 {
			key += ":" + d.Label()
		}
		var err error
		bd, err = b.opt.Ask.Ask(ctx, j.text, ask.Conversation{DB: d, Key: key}, nil)
		if err != nil {
			if ctx.Err() != nil {
				return view{}, nil, "stopped"
			}
			j.log.Error("question failed", "err", err)
			return view{body: []block{prose("Something went wrong while answering: " + format.Printable(err.Error()))}, footer: "-# ref " + j.id}, nil, "error"
		}
	}
	b.mem.setDB(j.conv, d.Label())
	v, keep = b.render(ctx, j, d, bd)
	j.log.Info("answer ready", "status", bd.Status, "db", d.Label(), "rows", bd.RowCount, "model_calls", bd.Usage.ModelCalls,
		"tokens_in", bd.Usage.InputTokens, "tokens_out", bd.Usage.OutputTokens, "cost_usd", bd.Usage.CostUSD, "answer_ms", bd.Timings.TotalMS)
	if bd.Status == answer.StatusError {
		j.log.Error("the answer service reported an error", "err", bd.Error)
	}
	return v, keep, string(bd.Status)
}

// db is the database labelled label, or nil.
func (b *Bot) db(label string) *db.DB {
	for _, d := range b.dbs {
		if d.Label() == label {
			return d
		}
	}
	return nil
}

// choose picks the database of a job: the only one; the one named; the
// one the question fits; among several it fits, the one the
// conversation used last. Otherwise it returns a menu to pick from.
func (b *Bot) choose(ctx context.Context, j *job) (*db.DB, *view, *pending) {
	if len(b.dbs) == 1 {
		return b.dbs[0], nil, nil
	}
	if d := b.db(j.db); d != nil {
		return d, nil, nil
	}
	var fits []string
	if j.kind == askJob {
		for _, d := range b.dbs {
			r, err := tools.SearchSchema(ctx, d, j.text, tools.DetailNames, 1)
			if err != nil {
				j.log.Warn("match the question to a database", "db", d.Label(), "err", err)
				continue
			}
			if len(r.Hits) > 0 {
				fits = append(fits, d.Label())
			}
		}
	}
	last := b.mem.dbOf(j.conv)
	what := "This question fits"
	switch {
	case len(fits) == 1:
		return b.db(fits[0]), nil, nil
	case len(fits) == 0 && last != "":
		return b.db(last), nil, nil
	case len(fits) > 1:
		for _, f := range fits {
			if f == last {
				return b.db(last), nil, nil
			}
		}
	default:
		fits = b.labels()
		what = "This question could be about"
	}
	keep := b.mem.add(&pending{kind: pendDatabase, asker: j.user, conv: j.conv, question: j.text, sql: j.kind == sqlJob, options: fits})
	if j.kind == sqlJob {
		what = "This SQL could run on"
	}
	v := view{
		body:       []block{prose(fmt.Sprintf("%s %s. Which database do you mean? Pick one, reply with its name, or say `cancel`.", what, optionList(fits)))},
		footer:     "-# ref " + j.id,
		components: []discordgo.MessageComponent{databaseMenu(customPrefix+"db:"+keep.nonce, fits)},
	}
	j.log.Info("asking which database", "fits", fits)
	return nil, &v, keep
}

// render lays out a bundle: the answer, flags, the SQL, a preview table,
// a CSV of the whole result when the preview does not hold it, a chart
// when the bundle has one, and a footer; follow-ups as a menu, a
// clarification's options as buttons. A part that fails (chart, CSV)
// is left out with a note; the rest still goes.
func (b *Bot) render(ctx context.Context, j *job, d *db.DB, bd *answer.Bundle) (view, *pending) {
	var v view
	label := ""
	if len(b.dbs) > 1 {
		label = d.Label()
	}
	v.footer = footer(bd, label, j.id)

	if bd.Status == answer.StatusClarify && bd.Clarification != nil {
		c := bd.Clarification
		asked := strings.TrimSpace(c.Question)
		if asked == "" {
			asked = strings.TrimSpace(bd.Answer)
		}
		opts := c.Options
		keep := b.mem.add(&pending{kind: pendClarify, asker: j.user, conv: j.conv, db: d.Label(), question: j.text, asked: asked, options: opts})
		v.body = append(v.body, prose("❓ "+format.Printable(asked)))
		rows, shown := clarifyButtons(customPrefix+"cl:"+keep.nonce, opts)
		if shown < len(opts) {
			v.body = append(v.body, prose("Options: "+optionList(opts)))
		}
		how := "Reply to this message with your answer"
		if len(opts) > 0 {
			how = "Pick an option, or reply to this message with your answer"
		}
		v.body = append(v.body, prose("-# "+how+"; say `cancel` to drop it."))
		v.components = rows
		return v, keep
	}

	text := strings.TrimSpace(bd.Answer)
	if text == "" && bd.Status == answer.StatusError {
		text = "Something went wrong while answering."
	}
	if text != "" {
		v.body = append(v.body, prose(format.Printable(text)))
	}
	for _, f := range bd.Flags {
		v.body = append(v.body, prose("⚠ "+format.Printable(f)))
	}
	var notes []string
	if sql := strings.TrimSpace(bd.SQL); sql != "" {
		shown := format.Printable(sql)
		if textLen(shown) <= maxInlineSQL {
			v.body = append(v.body, codeBlock("sql", inCode(shown)))
		} else {
			v.files = append(v.files, attachment{name: "query.sql", contentType: "text/plain; charset=utf-8", data: []byte(sql + "\n")})
			notes = append(notes, fmt.Sprintf("The SQL (%s characters) is attached as query.sql.", format.Count(int64(len(sql)))))
		}
	}
	room := b.opt.UploadLimit - payloadMargin
	for _, f := range v.files {
		room -= len(f.data)
	}
	ok := bd.Status == answer.StatusAnswered && bd.SQL != "" && len(bd.Columns) > 0
	if ok && bd.Chart != nil {
		png, err := b.chart(ctx, d, bd)
		switch {
		case err != nil:
			j.log.Warn("chart left out: it could not be drawn", "err", err, "spec", fmt.Sprintf("%+v", *bd.Chart))
			notes = append(notes, "The chart could not be drawn (ref "+j.id+"); the answer stands without it.")
		case len(png) > room:
			j.log.Warn("chart left out: larger than the upload limit", "bytes", len(png))
			notes = append(notes, "The chart is larger than this server's upload limit, so it is left out.")
		default:
			v.files = append(v.files, attachment{name: "chart.png", contentType: "image/png", data: png})
			room -= len(png)
		}
	}
	if len(bd.Columns) > 0 {
		table, shownCols := previewTable(bd.Columns, bd.Rows, PreviewRows)
		v.body = append(v.body, codeBlock("", table))
		shownRows := min(len(bd.Rows), PreviewRows)
		total, more := bd.RowCount, bd.Truncated
		csvNote := ""
		if ok && (bd.RowCount > shownRows || bd.Truncated || shownCols < len(bd.Columns)) {
			data, rows, capped, err := b.csv(ctx, d, bd.SQL, room)
			switch {
			case err != nil:
				j.log.Warn("CSV left out: the export failed", "err", err)
				csvNote = "the CSV could not be made (ref " + j.id + ")"
			case len(data) > room || rows == 0 && total > 0:
				csvNote = "the CSV does not fit this server's upload limit"
			default:
				v.files = append(v.files, attachment{name: "result.csv", contentType: "text/csv; charset=utf-8", data: data})
				switch {
				case capped:
					csvNote = fmt.Sprintf("result.csv holds the first %s (the upload limit or the export's cap stopped it)", format.Plural(int64(rows), "row"))
				default:
					total, more = rows, false
					csvNote = fmt.Sprintf("all %s in result.csv", format.Count(int64(rows)))
				}
			}
		}
		v.body = append(v.body, prose(rowNote(shownRows, total, more, shownCols, len(bd.Columns), csvNote)))
	}
	for _, n := range notes {
		v.body = append(v.body, prose(n))
	}
	if len(bd.FollowUps) > 0 && bd.Status != answer.StatusClarify {
		ups := bd.FollowUps[:min(len(bd.FollowUps), maxSelectOptions)]
		keep := b.mem.add(&pending{kind: pendFollowUps, asker: j.user, conv: j.conv, db: d.Label(), options: ups})
		if m := followUpMenu(customPrefix+"fu:"+keep.nonce, ups); m != nil {
			v.components = []discordgo.MessageComponent{m}
			return v, keep
		}
	}
	return v, nil
}

// rowNote says how much of the result the preview shows and where the
// rest is: "First 10 of 26 rows · all 26 in result.csv".
func rowNote(shown, total int, more bool, shownCols, cols int, csvNote string) string {
	var s string
	switch {
	case total == 0 && !more:
		s = "No rows."
	case shown == total && !more:
		s = format.Plural(int64(total), "row")
	case more:
		s = fmt.Sprintf("First %d of %s+ rows", shown, format.Count(int64(total)))
	default:
		s = fmt.Sprintf("First %d of %s rows", shown, format.Count(int64(total)))
	}
	if shownCols < cols {
		s += fmt.Sprintf(" · %d of %d columns shown", shownCols, cols)
	}
	if csvNote != "" {
		s += " · " + csvNote
	}
	return "-# " + s
}

// chart draws the bundle's chart: from the bundle's rows when they are
// the whole result, else from the result read again.
func (b *Bot) chart(ctx context.Context, d *db.DB, bd *answer.Bundle) ([]byte, error) {
	res := &query.Result{Columns: bd.Columns, Rows: bd.Rows, RowCount: bd.RowCount, Truncated: bd.Truncated, SQL: bd.SQL}
	if len(bd.Rows) < bd.RowCount || bd.Truncated {
		var err error
		res, err = query.Collect(ctx, d, bd.SQL, query.Options{MaxRows: chartspec.MaxRows, MaxBytes: query.DefaultMaxBytes, Timeout: chartQueryTimeout})
		if err != nil {
			return nil, fmt.Errorf("read the chart's rows: %w", err)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, b.opt.ChartTimeout)
	defer cancel()
	return charts.PNG(cctx, *bd.Chart, res, charts.Options{Width: chartWidth, Height: chartHeight})
}

// errCSVFull stops an export at the upload limit.
var errCSVFull = errors.New("CSV full")

// csv exports sql's whole result as CSV (formula-safe) of at most limit
// bytes, cut at a row. It returns the CSV, its rows, and whether rows
// were left out.
func (b *Bot) csv(ctx context.Context, d *db.DB, sql string, limit int) ([]byte, int, bool, error) {
	// The CSV writer keeps up to 64 KiB before it writes, so the sink
	// stops short of the limit; if a long last row still overshoots, the
	// export runs again with a lower stop.
	stopAt := limit - 128<<10
	for range 3 {
		if stopAt <= 0 {
			return nil, 0, true, nil
		}
		var buf bytes.Buffer
		w, err := export.New("csv", &buf, export.Options{})
		if err != nil {
			return nil, 0, false, err
		}
		sink := &csvSink{Writer: w, buf: &buf, stopAt: stopAt, limit: limit}
		// The values read are bounded too, so that no engine reads a row
		// far past the limit into memory: at 8 times the limit, as a value
		// counts 16 bytes besides its text and takes at least 2 of CSV.
		sum, err := query.Run(ctx, d, sql, query.Options{MaxRows: csvMaxRows, MaxBytes: 8 * int64(limit), Timeout: csvTimeout}, sink)
		if err != nil && !errors.Is(err, errCSVFull) {
			return nil, 0, false, err
		}
		if err := w.Finish(sum); err != nil {
			return nil, 0, false, err
		}
		if buf.Len() <= limit {
			return buf.Bytes(), sink.rows, sink.full || sum.Truncated, nil
		}
		stopAt -= buf.Len() - limit + 64<<10
	}
	return nil, 0, true, nil
}

// csvSink counts rows and stops the run when the CSV reaches stopAt, or
// before a row whose values alone would take it past limit.
type csvSink struct {
	export.Writer
	buf    *bytes.Buffer
	stopAt int
	limit  int
	rows   int
	full   bool
}

func (c *csvSink) Row(cur query.Cursor) error {
	if c.buf.Len() >= c.stopAt || c.buf.Len()+query.TextBytes(cur) > c.limit {
		c.full = true
		return errCSVFull
	}
	if err := c.Writer.Row(cur); err != nil {
		return err
	}
	c.rows++
	return nil
}

// runSQL runs one statement a person wrote, through the guard, as a
// bundle: the rows, or why there are none.
func (b *Bot) runSQL(ctx context.Context, d *db.DB, sql string) *answer.Bundle {
	t0 := time.Now()
	bd := &answer.Bundle{Question: sql, Provider: providerSQL}
	res, err := query.Collect(ctx, d, sql, query.Options{MaxRows: query.DefaultMaxRows, MaxBytes: query.DefaultMaxBytes, Timeout: query.DefaultTimeout})
	bd.Timings.TotalMS = time.Since(t0).Milliseconds()
	bd.Timings.SQLMS = bd.Timings.TotalMS
	if err != nil {
		bd.Status, bd.Answer = sqlFailure(err)
		return bd
	}
	bd.Status = answer.StatusAnswered
	bd.SQL, bd.Columns, bd.Rows, bd.RowCount, bd.Truncated = res.SQL, res.Columns, res.Rows, res.RowCount, res.Truncated
	if spec, ok := chartspec.Suggest(res.Columns, res.Rows); ok {
		bd.Chart = &spec
	}
	return bd
}

// sqlFailure says why SQL did not run, in words for the person who
// wrote it: the error's message and hint (core/fault, which bounds the
// names in them).
func sqlFailure(err error) (answer.Status, string) {
	var (
		rej *guard.Rejection
		se  *guard.SQLError
		le  *query.LimitError
	)
	_, msg, hint := fault.Explain(err)
	line := format.WithHint(msg, hint)
	switch {
	case errors.As(err, &rej):
		return answer.StatusRefused, "🚫 Refused: " + line + ". The database was not changed."
	case errors.As(err, &se):
		return answer.StatusError, "SQL error: " + line
	case errors.As(err, &le):
		return answer.StatusBudget, line
	case errors.Is(err, guard.ErrEmpty):
		return answer.StatusError, "There is no SQL statement in that text."
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return answer.StatusBudget, "The query was stopped before it finished."
	}
	return answer.StatusError, "The query failed: " + line
}
