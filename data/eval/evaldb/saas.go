package evaldb

import (
	"fmt"
	"strings"
	"time"
)

// saas follows a subscription-billing export in the habits of Stripe's
// data model, plus the product-analytics tables a software company keeps
// next to it. Singular table names; text ids with a type prefix
// (cus_…, sub_…); references named after the table they point at
// (subscription.customer → customer.id); timestamps as integer Unix
// seconds in the billing tables and as ISO text in the analytics tables;
// money as integer cents with a lower-case currency code; 0/1 flags;
// ISO 3166 country codes. The snapshot is 2025-06-30 23:59:59 UTC.
var saasSchema = []string{
	`CREATE TABLE customer (
  id          TEXT    NOT NULL PRIMARY KEY, -- cus_…
  name        TEXT    NOT NULL,
  email       TEXT    NOT NULL,
  country     TEXT    NOT NULL, -- ISO 3166-1 alpha-2
  currency    TEXT    NOT NULL, -- usd, eur, gbp
  balance     INTEGER NOT NULL, -- cents; negative is a credit
  delinquent  INTEGER NOT NULL, -- 1 when the latest invoice failed
  created     INTEGER NOT NULL  -- Unix seconds
)`,
	`CREATE TABLE product (
  id      TEXT    NOT NULL PRIMARY KEY, -- prod_…
  name    TEXT    NOT NULL UNIQUE,
  active  INTEGER NOT NULL,
  created INTEGER NOT NULL
)`,
	`CREATE TABLE price (
  id                 TEXT    NOT NULL PRIMARY KEY, -- price_…
  product            TEXT    NOT NULL REFERENCES product (id),
  nickname           TEXT    NOT NULL,
  unit_amount        INTEGER NOT NULL, -- cents
  currency           TEXT    NOT NULL,
  recurring_interval TEXT    NOT NULL, -- month, year
  active             INTEGER NOT NULL
)`,
	`CREATE TABLE subscription (
  id                   TEXT    NOT NULL PRIMARY KEY, -- sub_…
  customer             TEXT    NOT NULL REFERENCES customer (id),
  status               TEXT    NOT NULL, -- trialing, active, past_due, unpaid, canceled
  created              INTEGER NOT NULL,
  current_period_start INTEGER NOT NULL,
  current_period_end   INTEGER NOT NULL,
  trial_end            INTEGER,
  cancel_at_period_end INTEGER NOT NULL,
  canceled_at          INTEGER,
  ended_at             INTEGER
)`,
	`CREATE TABLE subscription_item (
  id           TEXT    NOT NULL PRIMARY KEY, -- si_…
  subscription TEXT    NOT NULL REFERENCES subscription (id),
  price        TEXT    NOT NULL REFERENCES price (id),
  quantity     INTEGER NOT NULL
)`,
	`CREATE TABLE invoice (
  id            TEXT    NOT NULL PRIMARY KEY, -- in_…
  customer      TEXT    NOT NULL REFERENCES customer (id),
  subscription  TEXT    REFERENCES subscription (id),
  status        TEXT    NOT NULL, -- draft, open, paid, void, uncollectible
  amount_due    INTEGER NOT NULL,
  amount_paid   INTEGER NOT NULL,
  currency      TEXT    NOT NULL,
  attempt_count INTEGER NOT NULL,
  created       INTEGER NOT NULL,
  due_date      INTEGER,
  paid_at       INTEGER
)`,
	`CREATE TABLE charge (
  id                  TEXT    NOT NULL PRIMARY KEY, -- ch_…
  customer            TEXT    NOT NULL REFERENCES customer (id),
  invoice             TEXT    REFERENCES invoice (id),
  amount              INTEGER NOT NULL,
  currency            TEXT    NOT NULL,
  status              TEXT    NOT NULL, -- succeeded, failed
  failure_code        TEXT,
  payment_method_type TEXT    NOT NULL, -- card, sepa_debit, us_bank_account
  refunded            INTEGER NOT NULL,
  created             INTEGER NOT NULL
)`,
	`CREATE TABLE app_user (
  id           INTEGER NOT NULL PRIMARY KEY,
  account_id   TEXT    NOT NULL REFERENCES customer (id),
  email        TEXT    NOT NULL UNIQUE,
  role         TEXT    NOT NULL, -- owner, admin, member, viewer
  signed_up_at TEXT    NOT NULL, -- ISO 8601 UTC
  last_seen_at TEXT
)`,
	`CREATE TABLE app_event (
  id          INTEGER NOT NULL PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES app_user (id),
  event_name  TEXT    NOT NULL,
  platform    TEXT    NOT NULL, -- web, ios, android, api
  occurred_at TEXT    NOT NULL  -- YYYY-MM-DD HH:MM:SS UTC
)`,
	`CREATE INDEX subscription_customer ON subscription (customer)`,
	`CREATE INDEX invoice_customer ON invoice (customer)`,
	`CREATE INDEX charge_invoice ON charge (invoice)`,
	`CREATE INDEX app_event_user ON app_event (user_id)`,
}

var (
	saasStart    = time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	saasSnapshot = time.Date(2025, 6, 30, 23, 59, 59, 0, time.UTC)
	saasEvents   = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

	saasCountries = []struct {
		code, currency string
		weight         int
	}{
		{"US", "usd", 38}, {"GB", "gbp", 12}, {"DE", "eur", 10}, {"CA", "usd", 8}, {"FR", "eur", 7}, {"IN", "usd", 6},
		{"AU", "usd", 5}, {"NL", "eur", 4}, {"BR", "usd", 4}, {"JP", "usd", 3}, {"SE", "eur", 2}, {"ES", "eur", 1},
	}
	saasWords1 = []string{"Bright", "Blue", "North", "Silver", "Swift", "Green", "Red", "Iron", "Quiet", "Bold", "Clear",
		"Golden", "Open", "True", "Wild", "Deep", "Lucky", "Prime", "Urban", "Solar"}
	saasWords2 = []string{"Harbor", "Pine", "Falcon", "River", "Summit", "Cedar", "Beacon", "Orbit", "Canyon", "Maple",
		"Anchor", "Comet", "Meadow", "Forge", "Lantern", "Ridge", "Willow", "Harvest", "Signal", "Atlas"}
	saasWords3 = []string{"Labs", "Studio", "Analytics", "Logistics", "Health", "Media", "Systems", "Works", "Foods",
		"Capital", "Robotics", "Travel", "Legal", "Energy", "Partners"}

	// saasProducts: name, active, monthly and yearly unit amounts in
	// USD cents (0: no such price), and whether it is sold per seat.
	saasProducts = []struct {
		name            string
		active          bool
		monthly, yearly int
		eur             bool
	}{
		{"Starter", true, 900, 9000, false},
		{"Team", true, 2900, 29000, true},
		{"Business", true, 7900, 79000, true},
		{"Enterprise", true, 24900, 249000, false},
		{"Legacy Pro", false, 4900, 0, false},
		{"Extra Storage", true, 1000, 10000, false},
	}
	saasEventNames   = []string{"login", "project_created", "report_viewed", "export_csv", "invite_sent", "api_call", "billing_page_viewed", "integration_connected"}
	saasEventWeights = []int{30, 8, 22, 6, 4, 20, 3, 2}
	saasPlatforms    = []string{"web", "ios", "android", "api"}
	saasPlatWeights  = []int{55, 15, 10, 20}
	saasFailures     = []string{"card_declined", "insufficient_funds", "expired_card", "processing_error"}
	saasFailWeights  = []int{45, 30, 18, 7}
)

type saasPrice struct {
	id, currency, interval string
	product, amount        int
}

func buildSaaS(b *builder) {
	r := newRNG(2025)
	b.exec(saasSchema...)
	ids := map[string]bool{}
	newID := func(prefix string) string {
		const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		for {
			var sb strings.Builder
			sb.WriteString(prefix)
			for range 14 {
				sb.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			if id := sb.String(); !ids[id] {
				ids[id] = true
				return id
			}
		}
	}
	unix := func(t time.Time) int64 { return t.Unix() }

	// Products and prices.
	var prices []saasPrice
	for pi, p := range saasProducts {
		pid := newID("prod_")
		b.insert("product", pid, p.name, boolInt(p.active), unix(saasStart.AddDate(0, 0, -400+pi*20)))
		add := func(amount int, currency, interval string) {
			if amount == 0 {
				return
			}
			id := newID("price_")
			nick := p.name + " " + map[string]string{"month": "Monthly", "year": "Yearly"}[interval]
			if currency != "usd" {
				nick += " (" + strings.ToUpper(currency) + ")"
			}
			b.insert("price", id, pid, nick, amount, currency, interval, boolInt(p.active))
			prices = append(prices, saasPrice{id: id, currency: currency, interval: interval, product: pi, amount: amount})
		}
		add(p.monthly, "usd", "month")
		add(p.yearly, "usd", "year")
		if p.eur {
			add(p.monthly*93/100, "eur", "month")
			add(p.yearly*93/100, "eur", "year")
		}
	}
	priceFor := func(product int, currency, interval string) *saasPrice {
		for i := range prices {
			p := &prices[i]
			if p.product == product && p.interval == interval && p.currency == currency {
				return p
			}
		}
		for i := range prices {
			p := &prices[i]
			if p.product == product && p.interval == interval && p.currency == "usd" {
				return p
			}
		}
		for i := range prices {
			if prices[i].product == product {
				return &prices[i]
			}
		}
		return nil
	}

	// Customers.
	cw := make([]int, len(saasCountries))
	for i, c := range saasCountries {
		cw[i] = c.weight
	}
	usedNames := map[string]bool{}
	userID, eventID := 0, 0
	for range 600 {
		var name string
		for {
			name = pick(r, saasWords1) + " " + pick(r, saasWords2) + " " + pick(r, saasWords3)
			if !usedNames[name] {
				break
			}
		}
		usedNames[name] = true
		country := saasCountries[r.weighted(cw)]
		created := saasStart.Add(time.Duration(r.Int64N(int64(saasSnapshot.Sub(saasStart)) - int64(30*24*time.Hour))))
		custID := newID("cus_")
		slug := strings.ToLower(strings.ReplaceAll(name, " ", ""))
		balance := 0
		switch x := r.Float64(); {
		case x < 0.08:
			balance = -r.between(5, 400) * 50
		case x < 0.12:
			balance = r.between(1, 300) * 100
		}

		// Subscriptions: most customers have one; some churned and came
		// back; some never subscribed.
		nsubs := 1
		switch x := r.Float64(); {
		case x < 0.12:
			nsubs = 0
		case x < 0.22:
			nsubs = 2
		}
		delinquent := false
		subStart := created.Add(time.Duration(r.between(0, 20*24)) * time.Hour)
		type subRow struct {
			vals []any
		}
		var subs, items, invoices, charges []subRow
		for s := 0; s < nsubs && subStart.Before(saasSnapshot.AddDate(0, 0, -3)); s++ {
			subID := newID("sub_")
			product := r.weighted([]int{30, 35, 20, 5, 10})
			interval := "month"
			if r.chance(0.25) {
				interval = "year"
			}
			if saasProducts[product].yearly == 0 {
				interval = "month"
			}
			pr := priceFor(product, country.currency, interval)
			seats := 1
			if product == 1 || product == 2 {
				seats = r.between(2, 40)
			}
			if product == 3 {
				seats = r.between(20, 200)
			}
			var trialEnd any
			start := subStart
			if r.chance(0.35) {
				te := start.AddDate(0, 0, 14)
				trialEnd = unix(te)
			}
			// The subscription ends (is canceled) for the first of two,
			// and for some of the others.
			var end time.Time
			status := "active"
			last := s == nsubs-1
			if !last || r.chance(0.22) {
				end = start.AddDate(0, r.between(1, 20), r.between(0, 27))
				if end.After(saasSnapshot) {
					end = time.Time{}
				}
			}
			if !end.IsZero() {
				status = "canceled"
			} else {
				switch x := r.Float64(); {
				case trialEnd != nil && time.Unix(trialEnd.(int64), 0).After(saasSnapshot):
					status = "trialing"
				case x < 0.07:
					status = "past_due"
				case x < 0.11:
					status = "unpaid"
				}
			}
			// Billing periods from the end of the trial.
			billFrom := start
			if trialEnd != nil {
				billFrom = time.Unix(trialEnd.(int64), 0).UTC()
			}
			stop := saasSnapshot
			if !end.IsZero() {
				stop = end
			}
			periodStart := billFrom
			var periods []time.Time
			for !periodStart.After(stop) {
				periods = append(periods, periodStart)
				if interval == "year" {
					periodStart = periodStart.AddDate(1, 0, 0)
				} else {
					periodStart = periodStart.AddDate(0, 1, 0)
				}
			}
			curStart := billFrom
			if len(periods) > 0 {
				curStart = periods[len(periods)-1]
			}
			curEnd := curStart.AddDate(0, 1, 0)
			if interval == "year" {
				curEnd = curStart.AddDate(1, 0, 0)
			}
			cancelAtEnd := status == "active" && r.chance(0.09)
			var canceledAt, endedAt any
			if !end.IsZero() {
				canceledAt = unix(end.Add(-time.Duration(r.between(0, 20*24)) * time.Hour))
				endedAt = unix(end)
			}
			subs = append(subs, subRow{[]any{subID, custID, status, unix(start), unix(curStart), unix(curEnd), trialEnd,
				boolInt(cancelAtEnd), canceledAt, endedAt}})
			amountDue := pr.amount * seats
			items = append(items, subRow{[]any{newID("si_"), subID, pr.id, seats}})
			if product != 4 && r.chance(0.2) {
				add := priceFor(5, "usd", interval)
				q := r.between(1, 10)
				items = append(items, subRow{[]any{newID("si_"), subID, add.id, q}})
				amountDue += add.amount * q
			}
			// Invoices, one per period; the latest fails for past_due and
			// unpaid subscriptions.
			for pi, ps := range periods {
				if ps.After(saasSnapshot) {
					break
				}
				invID := newID("in_")
				lastInv := pi == len(periods)-1
				status := "paid"
				switch {
				case lastInv && (subs[len(subs)-1].vals[2] == "past_due"):
					status = "open"
				case lastInv && (subs[len(subs)-1].vals[2] == "unpaid"):
					status = "uncollectible"
				case r.chance(0.01):
					status = "void"
				}
				attempts := 1
				if status != "paid" {
					attempts = r.between(2, 4)
				} else if r.chance(0.06) {
					attempts = 2
				}
				due := ps.AddDate(0, 0, 30)
				var paidAt any
				paid := 0
				if status == "paid" {
					paid = amountDue
					paidAt = unix(ps.Add(time.Duration(r.between(0, 5*24*60)) * time.Minute))
				}
				if status == "open" || status == "uncollectible" {
					delinquent = true
				}
				invoices = append(invoices, subRow{[]any{invID, custID, subID, status, amountDue, paid, country.currency, attempts,
					unix(ps), unix(due), paidAt}})
				method := "card"
				switch x := r.Float64(); {
				case country.currency == "eur" && x < 0.3:
					method = "sepa_debit"
				case country.code == "US" && x < 0.15:
					method = "us_bank_account"
				}
				for a := 1; a <= attempts && status != "void"; a++ {
					ok := status == "paid" && a == attempts
					at := ps.Add(time.Duration(a-1)*72*time.Hour + time.Duration(r.between(1, 600))*time.Minute)
					var code any
					st := "succeeded"
					if !ok {
						st = "failed"
						code = saasFailures[r.weighted(saasFailWeights)]
					}
					refunded := ok && r.chance(0.012)
					charges = append(charges, subRow{[]any{newID("ch_"), custID, invID, amountDue, country.currency, st, code, method,
						boolInt(refunded), unix(at)}})
				}
			}
			if !end.IsZero() {
				subStart = end.AddDate(0, r.between(1, 8), r.between(0, 27))
			}
		}
		if r.chance(0.02) {
			delinquent = true
		}
		b.insert("customer", custID, name, "billing@"+slug+".com", country.code, country.currency, balance, boolInt(delinquent), unix(created))
		for _, s := range subs {
			b.insert("subscription", s.vals...)
		}
		for _, s := range items {
			b.insert("subscription_item", s.vals...)
		}
		for _, s := range invoices {
			b.insert("invoice", s.vals...)
		}
		for _, s := range charges {
			b.insert("charge", s.vals...)
		}

		// People who use the product, and what they did this year.
		nusers := 1 + r.IntN(4)
		if r.chance(0.3) {
			nusers += r.between(3, 30)
		}
		for u := 0; u < nusers; u++ {
			userID++
			role := "member"
			switch {
			case u == 0:
				role = "owner"
			case r.chance(0.15):
				role = "admin"
			case r.chance(0.15):
				role = "viewer"
			}
			signed := created.Add(time.Duration(r.Int64N(int64(saasSnapshot.Sub(created)))))
			if u == 0 {
				signed = created
			}
			var lastSeen any
			active := r.chance(0.75)
			if active {
				from := signed
				if from.Before(saasEvents) {
					from = saasEvents
				}
				if from.Before(saasSnapshot) {
					lastSeen = from.Add(time.Duration(r.Int64N(int64(saasSnapshot.Sub(from))))).Format("2006-01-02T15:04:05Z")
				}
			}
			email := fmt.Sprintf("%s.%d@%s.com", strings.ToLower(pick(r, append(maleNames, femaleNames...))), userID, slug)
			b.insert("app_user", userID, custID, email, role, signed.Format("2006-01-02T15:04:05Z"), lastSeen)
			if lastSeen == nil {
				continue
			}
			from := signed
			if from.Before(saasEvents) {
				from = saasEvents
			}
			ls, _ := time.Parse("2006-01-02T15:04:05Z", lastSeen.(string))
			nev := r.between(1, 40)
			for range nev {
				if !ls.After(from) {
					break
				}
				eventID++
				at := from.Add(time.Duration(r.Int64N(int64(ls.Sub(from)) + 1)))
				b.insert("app_event", eventID, userID, saasEventNames[r.weighted(saasEventWeights)],
					saasPlatforms[r.weighted(saasPlatWeights)], isoDateTime(at))
			}
		}
	}
}
