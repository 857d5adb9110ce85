package sampledb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"
)

// The data covers firstDay..lastDay inclusive; lastDay is "today" for the
// shop, so recent orders are still pending, processing or in transit.
var (
	firstDay = day(2022, 1, 1)
	lastDay  = day(2025, 6, 30)
)

const (
	targetOrders    = 12000
	targetCustomers = 2400
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func parseDay(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func ymd(t time.Time) string { return t.Format("2006-01-02") }
func ts(t time.Time) string  { return t.Format("2006-01-02 15:04:05") }

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// years returns the (fractional) number of years between a and b.
func years(a, b time.Time) float64 { return b.Sub(a).Hours() / 24 / 365.25 }

// growth is the business size relative to January 2022 (about +32% a year).
func growth(t time.Time) float64 { return math.Exp(math.Log(1.32) * years(firstDay, t)) }

// table is one table's rows, inserted in order.
type table struct {
	name string
	cols []string
	rows [][]any
}

type dataset struct{ tables []*table }

func (d *dataset) table(name string, cols ...string) *table {
	t := &table{name: name, cols: cols}
	d.tables = append(d.tables, t)
	return t
}

func (t *table) add(vals ...any) {
	if len(vals) != len(t.cols) {
		panic(fmt.Sprintf("sampledb: %s: %d values for %d columns", t.name, len(vals), len(t.cols)))
	}
	t.rows = append(t.rows, vals)
}

// nullable maps the zero value to NULL.
func nullable[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

type gen struct {
	r *rand.Rand
}

func (g *gen) chance(p float64) bool  { return g.r.Float64() < p }
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }
func (g *gen) pick(ss []string) string {
	return ss[g.r.IntN(len(ss))]
}

// weighted returns an index chosen with probability proportional to ws.
func (g *gen) weighted(ws []float64) int {
	total := 0.0
	for _, w := range ws {
		total += w
	}
	x := g.r.Float64() * total
	for i, w := range ws {
		if x < w {
			return i
		}
		x -= w
	}
	return len(ws) - 1
}

// cumPick picks from a cumulative weight slice.
func (g *gen) cumPick(cum []float64) int {
	x := g.r.Float64() * cum[len(cum)-1]
	// Entry i covers [cum[i-1], cum[i]); zero-weight entries are never hit.
	i := sort.Search(len(cum), func(i int) bool { return cum[i] > x })
	return min(i, len(cum)-1)
}

// poisson draws a Poisson-distributed count (Knuth; fine for small lambda).
func (g *gen) poisson(lambda float64) int {
	l := math.Exp(-lambda)
	k, p := 0, 1.0
	for {
		p *= g.r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

func (g *gen) dateBetween(a, b time.Time) time.Time {
	n := int(b.Sub(a).Hours() / 24)
	return a.AddDate(0, 0, g.r.IntN(n+1))
}

func (g *gen) phone(dial string) string {
	return fmt.Sprintf("%s %03d %03d %04d", dial, g.between(20, 989), g.between(100, 999), g.r.IntN(10000))
}

// personName returns a display name and its two parts.
func (g *gen) personName(l *locale) (full, given, family string) {
	female := g.chance(0.5)
	if female {
		given = g.pick(l.female)
	} else {
		given = g.pick(l.male)
	}
	family = g.pick(l.family)
	if m, f, ok := strings.Cut(family, "|"); ok {
		family = m
		if female {
			family = f
		}
	}
	if l.familyFirst {
		return family + l.sep + given, given, family
	}
	return given + l.sep + family, given, family
}

var translitTable = strings.NewReplacer(
	"á", "a", "à", "a", "â", "a", "ä", "a", "ã", "a", "å", "a", "ą", "a",
	"ç", "c", "ć", "c", "č", "c", "ď", "d", "đ", "d",
	"é", "e", "è", "e", "ê", "e", "ë", "e", "ę", "e", "ě", "e",
	"í", "i", "ì", "i", "î", "i", "ï", "i", "ı", "i",
	"ł", "l", "ñ", "n", "ń", "n", "ň", "n",
	"ó", "o", "ò", "o", "ô", "o", "ö", "o", "õ", "o", "ø", "o", "ő", "o",
	"ř", "r", "ś", "s", "š", "s", "ş", "s", "ť", "t",
	"ú", "u", "ù", "u", "û", "u", "ü", "u", "ů", "u",
	"ý", "y", "ÿ", "y", "ź", "z", "ż", "z", "ž", "z",
	"ß", "ss", "æ", "ae", "œ", "oe", "þ", "th", "ð", "d",
	"'", "", " ", "", "-", "",
)

// translit turns a Latin-script name into an ASCII e-mail fragment, or ""
// when the name is in another script.
func translit(s string) string {
	s = translitTable.Replace(strings.ToLower(s))
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return ""
		}
	}
	return s
}

var mailDomains = []string{"example.com", "example.net", "example.org", "mail.example"}

// ---------------------------------------------------------------------------

type product struct {
	id          int
	cat, sup    int
	name        string
	price       float64
	intro, disc time.Time // disc is zero when still sold
	pop         float64
	quality     float64
}

type customer struct {
	id       int
	country  int
	city     string
	name     string
	business bool
	signup   time.Time
	weight   float64
	orders   int
}

type promo struct {
	code, typ   string
	value       float64
	from, to    time.Time
	maxUses     int
	description string
	unused      bool // never offered at checkout in the data
	minOrders   int  // only offered to customers with at least this many earlier orders
	uses        int
}

type orderInfo struct {
	id        int
	cust      *customer
	placed    time.Time
	status    string
	delivered time.Time // zero unless delivered/returned
	lines     []int     // product indexes
	shipTo    int       // country index
}

// catSeason is a per-category, per-month demand multiplier.
func catSeason(cat int, m time.Month) float64 {
	switch categories[cat].name {
	case "Garden":
		return [12]float64{0.4, 0.6, 1.4, 2.2, 2.6, 2.3, 1.8, 1.2, 0.8, 0.5, 0.35, 0.3}[m-1]
	case "Candles & Scents":
		return [12]float64{1.0, 1.1, 0.8, 0.7, 0.7, 0.6, 0.6, 0.7, 1.0, 1.5, 2.0, 2.4}[m-1]
	case "Lighting":
		return [12]float64{1.4, 1.1, 0.9, 0.8, 0.7, 0.6, 0.6, 0.7, 0.9, 1.2, 1.5, 1.7}[m-1]
	case "Textiles", "Bedding & Bath":
		return [12]float64{1.4, 1.2, 1.0, 0.9, 0.8, 0.7, 0.7, 0.8, 1.0, 1.2, 1.3, 1.3}[m-1]
	}
	return 1
}

// orderWeight is the relative order volume on a day.
func orderWeight(d time.Time) float64 {
	w := growth(d) * [12]float64{0.85, 0.80, 0.92, 0.97, 1.0, 0.80, 0.70, 0.74, 0.93, 1.03, 1.30, 1.75}[d.Month()-1]
	if d.Month() == time.December {
		switch {
		case d.Day() == 25:
			w *= 0.35
		case d.Day() == 24 || d.Day() == 26:
			w *= 0.6
		case d.Day() > 26:
			w *= 0.75
		}
	}
	if bf := blackFriday(d.Year()); !d.Before(bf) && d.Before(bf.AddDate(0, 0, 4)) {
		w *= 2.0
	}
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		w *= 1.12
	}
	return w
}

// blackFriday is the day after the fourth Thursday of November.
func blackFriday(y int) time.Time {
	d := day(y, time.November, 1)
	for d.Weekday() != time.Thursday {
		d = d.AddDate(0, 0, 1)
	}
	return d.AddDate(0, 0, 22)
}

func teamOf(region int) int {
	switch region {
	case regNorthAmerica, regLatinAmerica:
		return 1
	case regAsiaPacific:
		return 3
	}
	return 2
}

// paymentTypes returns payment methods and weights for a country.
func paymentTypes(iso string, business bool) ([]string, []float64) {
	types := []string{"card", "paypal", "bank_transfer", "gift_card", "pay_later"}
	ws := []float64{62, 22, 6, 4, 6}
	switch iso {
	case "DE", "AT", "NL":
		ws = []float64{33, 35, 20, 4, 8}
	case "BR":
		types = append(types, "pix")
		ws = []float64{45, 8, 2, 4, 0, 41}
	case "PL":
		types = append(types, "blik")
		ws = []float64{35, 18, 8, 3, 2, 34}
	case "JP":
		types = append(types, "konbini")
		ws = []float64{68, 8, 4, 3, 0, 17}
	}
	if business {
		ws = slices.Clone(ws)
		ws[2] *= 6
		ws[3] = 0
	}
	return types, ws
}

// generate builds the whole dataset in memory. All randomness comes from a
// single PCG stream with a fixed seed, so the output is reproducible.
func generate() *dataset {
	g := &gen{r: rand.New(rand.NewPCG(1, 2))}
	ds := &dataset{}

	// regions, countries -------------------------------------------------
	tRegions := ds.table("regions", "region_id", "name")
	for i, n := range regionNames {
		tRegions.add(i+1, n)
	}
	tCountries := ds.table("countries", "country_id", "name", "iso_code", "region_id", "currency", "dial_code")
	for i, c := range countries {
		tCountries.add(i+1, c.name, c.iso, c.region, c.currency, c.dial)
	}

	// employees -------------------------------------------------------------
	tEmployees := ds.table("employees", "employee_id", "first_name", "last_name", "title", "reports_to",
		"birth_date", "hire_date", "termination_date", "country_id", "email")
	mailOverride := []string{4: "aiko.matsuda", 14: "kenji.mori"}
	for i, e := range employees {
		local := translit(e.first) + "." + translit(e.last)
		if i < len(mailOverride) && mailOverride[i] != "" {
			local = mailOverride[i]
		}
		tEmployees.add(i+1, e.first, e.last, e.title, nullable(e.reportsTo), e.birth, e.hire,
			nullable(e.left), countryIdx(e.iso)+1, local+"@lumenandloom.example")
	}

	// categories, suppliers ---------------------------------------------------
	tCategories := ds.table("categories", "category_id", "name", "description")
	for i, c := range categories {
		tCategories.add(i+1, c.name, c.description)
	}
	tSuppliers := ds.table("suppliers", "supplier_id", "name", "contact_name", "contact_title", "country_id",
		"city", "phone", "website", "partner_since")
	for i, s := range suppliers {
		ci := countryIdx(s.iso)
		tSuppliers.add(i+1, s.name, s.contact, nullable(s.title), ci+1, s.city, g.phone(countries[ci].dial),
			nullable(s.website), s.since)
	}

	// products ------------------------------------------------------------------
	products := genProducts(g, ds)

	// promo codes -----------------------------------------------------------------
	promos := genPromos()

	// shippers ----------------------------------------------------------------------
	tShippers := ds.table("shippers", "shipper_id", "name", "phone", "since")
	for i, s := range shippers {
		tShippers.add(i+1, s.name, s.phone, s.since)
	}

	// customers -----------------------------------------------------------------------
	custs := genCustomers(g, ds)

	// orders and everything hanging off them -------------------------------------------
	orders := genOrders(g, ds, products, custs, promos)

	// promo codes go in after their usage is known (max_uses must fit).
	tPromos := ds.table("promo codes", "promo_code_id", "code", "type", "value", "valid_from", "valid_to",
		"max_uses", "description")
	for i, p := range promos {
		var value any
		if p.typ == "percent" {
			value = p.value
		}
		maxUses := any(nil)
		if p.maxUses > 0 {
			maxUses = max(p.maxUses, p.uses)
		}
		tPromos.add(i+1, p.code, p.typ, value, ymd(p.from), ymd(p.to), maxUses, p.description)
	}
	// Insert order must respect foreign keys: move "promo codes" before orders.
	moveBefore(ds, "promo codes", "orders")

	genReviews(g, ds, products, orders)
	return ds
}

func moveBefore(ds *dataset, name, before string) {
	i := slices.IndexFunc(ds.tables, func(t *table) bool { return t.name == name })
	t := ds.tables[i]
	ds.tables = slices.Delete(ds.tables, i, i+1)
	j := slices.IndexFunc(ds.tables, func(t *table) bool { return t.name == before })
	ds.tables = slices.Insert(ds.tables, j, t)
}

func genProducts(g *gen, ds *dataset) []*product {
	t := ds.table("products", "product_id", "sku", "name", "category_id", "supplier_id", "unit_price",
		"units_in_stock", "reorder_level", "discontinued", "introduced_date", "notes")
	reasons := []string{
		"supplier ended production of this line",
		"replaced by a newer design",
		"low sales",
		"quality complaints from customers; do not reorder",
		"glaze no longer available",
		"shipping damage rate too high",
	}
	remarks := []string{
		"Hand-made; small variations in colour and shape are normal.",
		"Ships separately from other items.",
		"Bestseller — keep at least two weeks of stock.",
		"Care: hand wash only.",
		"Oversized parcel; freight surcharge absorbed by the shop.",
		"Photographed with props that are not included.",
	}
	var ps []*product
	for ci, c := range categories {
		if len(c.items) == 0 {
			continue
		}
		var sups []int
		for si, s := range suppliers {
			if slices.Contains(s.cats, ci) {
				sups = append(sups, si)
			}
		}
		n := 0
		for _, item := range c.items {
			level := g.r.Float64() // where the item sits in the category's price range
			a := g.r.IntN(len(collections))
			b := (a + 1 + g.r.IntN(len(collections)-1)) % len(collections)
			for _, col := range []int{a, b} {
				n++
				p := &product{id: len(ps) + 1, cat: ci, sup: sups[g.r.IntN(len(sups))]}
				p.name = collections[col] + " " + item
				u := min(max(level+0.08*g.r.NormFloat64(), 0), 1)
				raw := c.lo * math.Pow(c.hi/c.lo, u)
				p.price = math.Floor(raw) + []float64{0, 0.5, 0.95, 0.99}[g.r.IntN(4)]
				if g.chance(0.72) {
					p.intro = g.dateBetween(day(2019, 1, 1), day(2021, 12, 31))
				} else {
					p.intro = g.dateBetween(day(2022, 1, 15), day(2025, 5, 31))
				}
				var notes any
				if g.chance(0.09) {
					d := g.dateBetween(day(2022, 6, 1), day(2025, 4, 30))
					if earliest := p.intro.AddDate(0, 0, 200); d.Before(earliest) {
						d = earliest
					}
					if d.Before(day(2025, 6, 1)) {
						p.disc = d
						notes = fmt.Sprintf("Discontinued %s: %s.", d.Format("2006-01"), g.pick(reasons))
					}
				}
				if notes == nil && g.chance(0.15) {
					notes = g.pick(remarks)
				}
				p.pop = math.Exp(g.r.NormFloat64() * 0.8)
				p.quality = 3.2 + 1.5*g.r.Float64()
				stock := 0
				if p.disc.IsZero() && !g.chance(0.05) {
					stock = g.between(3, 420)
				}
				disc := 0
				if !p.disc.IsZero() {
					disc = 1
				}
				t.add(p.id, fmt.Sprintf("%s-%04d", c.code, n), p.name, ci+1, p.sup+1, p.price, stock,
					[]int{10, 15, 20, 25, 30}[g.r.IntN(5)], disc, ymd(p.intro), notes)
				ps = append(ps, p)
			}
		}
	}
	return ps
}

func genPromos() []*promo {
	ps := []*promo{
		{code: "WELCOME10", typ: "percent", value: 0.10, from: day(2021, 6, 1), to: day(2026, 12, 31),
			description: "10% off a customer's first order"},
	}
	for y := 2022; y <= 2025; y++ {
		yy := y % 100
		if y > 2022 {
			ps = append(ps, &promo{code: fmt.Sprintf("NEWYEAR%02d", yy), typ: "percent", value: 0.10,
				from: day(y, 1, 1), to: day(y, 1, 15), description: "New year sale"})
		}
		ps = append(ps, &promo{code: fmt.Sprintf("SPRING%02d", yy), typ: "percent", value: 0.15,
			from: day(y, 3, 20), to: day(y, 4, 10), maxUses: 400, description: "Spring refresh: 15% off"})
		summer := &promo{code: fmt.Sprintf("SUMMERSALE%02d", yy), typ: "percent", value: 0.20,
			from: day(y, 7, 1), to: day(y, 7, 31), description: "Summer sale: 20% off everything"}
		if y == 2025 {
			summer.unused = true // scheduled, not started yet
		}
		ps = append(ps, summer)
		if y < 2025 {
			bf := blackFriday(y)
			ps = append(ps,
				&promo{code: fmt.Sprintf("BLACKFRIDAY%02d", yy), typ: "percent", value: 0.25,
					from: bf, to: bf.AddDate(0, 0, 3), description: "Black Friday weekend: 25% off"},
				&promo{code: fmt.Sprintf("HOLIDAYSHIP%02d", yy), typ: "free_shipping",
					from: day(y, 12, 1), to: day(y, 12, 18), description: "Free shipping for holiday orders"})
		}
	}
	ps = append(ps,
		&promo{code: "LOOMLOYALTY5", typ: "percent", value: 0.05, from: day(2024, 6, 1), to: day(2025, 12, 31),
			minOrders: 5, description: "Loyalty programme: 5% off for customers with five or more orders"},
		&promo{code: "FREESHIPJUNE25", typ: "free_shipping", from: day(2025, 6, 1), to: day(2025, 6, 30),
			maxUses: 300, description: "Free shipping in June"},
		&promo{code: "STAFF30", typ: "percent", value: 0.30, from: day(2022, 1, 1), to: day(2025, 12, 31),
			maxUses: 50, description: "Internal staff discount (not for customers)", unused: true},
	)
	return ps
}

func genCustomers(g *gen, ds *dataset) []*customer {
	// signup day weights
	signupFrom, signupTo := day(2021, 6, 1), day(2025, 6, 28)
	var days []time.Time
	var cum []float64
	total := 0.0
	for d := signupFrom; !d.After(signupTo); d = d.AddDate(0, 0, 1) {
		w := growth(d)
		if d.Month() >= time.November {
			w *= 1.3
		}
		total += w
		days = append(days, d)
		cum = append(cum, total)
	}
	cw := make([]float64, len(countries))
	for i, c := range countries {
		cw[i] = c.weight
	}
	custs := make([]*customer, 0, targetCustomers)
	for i := 0; i < targetCustomers; i++ {
		c := &customer{country: g.weighted(cw)}
		c.signup = days[g.cumPick(cum)]
		custs = append(custs, c)
	}
	// Customer ids follow signup order, so "customers who could order on day
	// d" is a prefix of the slice.
	slices.SortStableFunc(custs, func(a, b *customer) int { return a.signup.Compare(b.signup) })

	t := ds.table("customers", "customer_id", "name", "email", "phone", "type", "company", "city",
		"country_id", "signup_date", "marketing_opt_in")
	seen := map[string]bool{}
	for i, c := range custs {
		c.id = i + 1
		co := countries[c.country]
		full, given, family := g.personName(co.loc)
		c.name = full
		cities := co.cities
		cityW := make([]float64, len(cities))
		for j := range cities {
			cityW[j] = 1 / math.Pow(float64(j+1), 0.8)
		}
		c.city = cities[g.weighted(cityW)]
		c.business = g.chance(0.08)
		c.weight = math.Exp(g.r.NormFloat64())
		var company any
		if c.business {
			c.weight *= 1.5
			company = fmt.Sprintf(g.pick(co.loc.companies), family)
		}
		fg, ff := translit(given), translit(family)
		var local string
		if fg == "" || ff == "" {
			local = fmt.Sprintf("customer%05d", c.id)
		} else {
			switch g.r.IntN(4) {
			case 0:
				local = fg + "." + ff
			case 1:
				local = fmt.Sprintf("%s%s%02d", fg, ff, g.r.IntN(100))
			case 2:
				local = fg[:1] + "." + ff
			default:
				local = fg + "_" + ff
			}
		}
		email := local + "@" + g.pick(mailDomains)
		if seen[email] {
			email = fmt.Sprintf("%s.%d@%s", local, c.id, g.pick(mailDomains))
		}
		seen[email] = true
		var phone any
		if g.chance(0.68) {
			phone = g.phone(co.dial)
		}
		typ := "individual"
		if c.business {
			typ = "business"
		}
		optIn := 0
		if g.chance(0.38) {
			optIn = 1
		}
		t.add(c.id, c.name, email, phone, typ, company, c.city, c.country+1, ymd(c.signup), optIn)
	}
	return custs
}

func genOrders(g *gen, ds *dataset, products []*product, custs []*customer, promos []*promo) []*orderInfo {
	tOrders := ds.table("orders", "order_id", "customer_id", "employee_id", "order_date", "required_date",
		"shipped_date", "status", "channel", "ship_city", "ship_country", "promo_code_id", "freight")
	tItems := ds.table("order_items", "order_item_id", "order_id", "product_id", "quantity", "unit_price", "discount")
	tPayments := ds.table("payments", "payment_id", "order_id", "type", "amount", "status", "created_at", "settled_at")
	tShipments := ds.table("shipments", "shipment_id", "order_id", "shipper_id", "tracking_number", "status",
		"shipped_date", "delivered_date")

	// Customer loyalty weights, cumulative in signup order.
	custCum := make([]float64, len(custs))
	acc := 0.0
	for i, c := range custs {
		acc += c.weight
		custCum[i] = acc
	}
	// Expected orders per day.
	var days []time.Time
	var ws []float64
	wTotal := 0.0
	for d := firstDay; !d.After(lastDay); d = d.AddDate(0, 0, 1) {
		w := orderWeight(d)
		days = append(days, d)
		ws = append(ws, w)
		wTotal += w
	}
	// Sales representatives per team.
	type rep struct {
		id         int
		hire, left time.Time
	}
	teams := map[int][]rep{}
	heads := map[int]int{}
	for i, e := range employees {
		if e.team == 0 {
			continue
		}
		if strings.HasPrefix(e.title, "Head of Sales") {
			heads[e.team] = i + 1
			continue
		}
		r := rep{id: i + 1, hire: parseDay(e.hire)}
		if e.left != "" {
			r.left = parseDay(e.left)
		}
		teams[e.team] = append(teams[e.team], r)
	}
	countryW := make([]float64, len(countries))
	for i, c := range countries {
		countryW[i] = c.weight
	}
	hourW := []float64{2, 1, 0.6, 0.4, 0.3, 0.4, 1, 2, 3, 4, 4.5, 4.5, 5, 5, 4.5, 4.5, 4.5, 5, 6, 7.5, 8.5, 8, 6, 3.5}
	lineW := []float64{35, 28, 17, 10, 5, 2.5, 1.5, 1}
	qtyW := []float64{62, 24, 7, 4, 3}
	freightBase := map[int]float64{
		regNorthAmerica: 6.95, regLatinAmerica: 14.95, regWestEurope: 7.95, regNorthEurope: 8.95,
		regEastEurope: 9.95, regAsiaPacific: 16.95, regMiddleEastAf: 15.95,
	}
	transit := map[int][2]int{
		regNorthAmerica: {2, 5}, regLatinAmerica: {5, 12}, regWestEurope: {2, 5}, regNorthEurope: {2, 6},
		regEastEurope: {3, 7}, regAsiaPacific: {4, 10}, regMiddleEastAf: {5, 12},
	}
	shipperChoice := func(region int) int { // 0-based shipper index
		var a int
		switch region {
		case regNorthAmerica:
			a = 0
		case regLatinAmerica:
			a = 4
		case regWestEurope, regNorthEurope, regEastEurope:
			a = 2
		default:
			a = 3
		}
		if g.chance(0.35) {
			return 1 // Blue Heron ships everywhere
		}
		return a
	}
	endOfData := lastDay.Add(24*time.Hour - time.Second)

	var orders []*orderInfo
	orderID, itemID, paymentID, shipmentID := 10000, 0, 0, 0
	prodCum := make([]float64, len(products))
	for di, d := range days {
		// products on sale today, weighted by popularity and season
		acc := 0.0
		for i, p := range products {
			if !p.intro.After(d) && (p.disc.IsZero() || d.Before(p.disc)) {
				acc += p.pop * catSeason(p.cat, d.Month())
			}
			prodCum[i] = acc
		}
		eligible := sort.Search(len(custs), func(i int) bool { return custs[i].signup.After(d) })
		if eligible == 0 {
			continue
		}
		n := g.poisson(targetOrders * ws[di] / wTotal)
		secs := make([]int, n)
		for i := range secs {
			secs[i] = g.weighted(hourW)*3600 + g.r.IntN(3600)
		}
		slices.Sort(secs)
		for _, sec := range secs {
			orderID++
			placed := d.Add(time.Duration(sec) * time.Second)
			ci := g.cumPick(custCum[:eligible])
			c := custs[ci]
			co := countries[c.country]
			o := &orderInfo{id: orderID, cust: c, placed: placed, shipTo: c.country}

			// employee
			emp := heads[teamOf(co.region)]
			var active []int
			for _, r := range teams[teamOf(co.region)] {
				if !r.hire.After(d) && (r.left.IsZero() || !d.After(r.left)) {
					active = append(active, r.id)
				}
			}
			if len(active) > 0 && !g.chance(0.1) {
				emp = active[g.r.IntN(len(active))]
			}

			// channel
			frac := years(firstDay, d) / years(firstDay, lastDay)
			channel := []string{"web", "mobile_app", "marketplace", "phone"}[g.weighted([]float64{
				0.80 - 0.25*frac, 0.12 + 0.25*frac, 0.05, map[bool]float64{true: 0.15, false: 0.03}[c.business]})]

			// promo code
			var pr *promo
			prID := 0
			if c.orders == 0 && g.chance(0.45) {
				pr, prID = promos[0], 1
			} else {
				var act []int
				for i, p := range promos[1:] {
					if !p.unused && !p.from.After(d) && !d.After(p.to) && c.orders >= p.minOrders &&
						(p.maxUses == 0 || p.uses < p.maxUses) {
						act = append(act, i+1)
					}
				}
				if len(act) > 0 && g.chance(0.3) {
					i := act[g.r.IntN(len(act))]
					pr, prID = promos[i], i+1
				}
			}
			if pr != nil {
				pr.uses++
			}
			c.orders++

			// destination
			if g.chance(0.04) {
				for {
					o.shipTo = g.weighted(countryW)
					if o.shipTo != c.country {
						break
					}
				}
			}
			dest := countries[o.shipTo]
			city := c.city
			if o.shipTo != c.country {
				city = g.pick(dest.cities)
			}

			// items
			nLines := g.weighted(lineW) + 1
			subtotal, units := 0.0, 0
			for len(o.lines) < nLines {
				var pi int
				ok := false
				for try := 0; try < 20; try++ {
					pi = g.cumPick(prodCum)
					if !slices.Contains(o.lines, pi) {
						ok = true
						break
					}
				}
				if !ok {
					break
				}
				p := products[pi]
				o.lines = append(o.lines, pi)
				qty := g.weighted(qtyW) + 1
				if c.business && g.chance(0.6) {
					qty *= g.between(2, 6)
				}
				price := round2(p.price / math.Pow(1.04, years(d, lastDay)))
				discount := 0.0
				switch {
				case pr != nil && pr.typ == "percent":
					discount = pr.value
				case c.business && g.chance(0.3):
					discount = 0.10
				default:
					discount = []float64{0, 0.05, 0.10, 0.15}[g.weighted([]float64{86, 8, 4.5, 1.5})]
				}
				itemID++
				tItems.add(itemID, o.id, p.id, qty, price, discount)
				subtotal += float64(qty) * price * (1 - discount)
				units += qty
			}
			subtotal = round2(subtotal)

			// freight
			freight := 0.0
			if !(pr != nil && pr.typ == "free_shipping") && subtotal < 250 {
				freight = round2(freightBase[dest.region] + math.Min(0.75*float64(units-1), 15) + 2*g.r.Float64())
			}
			total := round2(subtotal + freight)
			required := d.AddDate(0, 0, 10)
			if dest.region != co.region {
				required = d.AddDate(0, 0, 16)
			}

			// fulfilment
			var shipped, delivered time.Time
			switch {
			case g.chance(0.03):
				o.status = "cancelled"
			default:
				proc := g.between(0, 2)
				if d.Month() == time.December {
					proc = g.between(1, 4)
				}
				ship := d.AddDate(0, 0, proc)
				if ship.After(lastDay) || (ship.Equal(lastDay) && g.chance(0.5)) {
					o.status = "processing"
					if lastDay.Sub(d) <= 24*time.Hour && g.chance(0.6) {
						o.status = "pending"
					}
					break
				}
				shipped = ship
				tr := transit[dest.region]
				del := ship.AddDate(0, 0, g.between(tr[0], tr[1]))
				if del.After(lastDay) {
					o.status = "shipped"
					break
				}
				delivered = del
				o.status = "delivered"
				if g.chance(0.025) {
					o.status = "returned"
				}
			}
			o.delivered = delivered

			tOrders.add(o.id, c.id, emp, ts(placed), ymd(required), nullableTime(shipped, ymd), o.status,
				channel, city, dest.name, nullable(prID), freight)

			// payments
			types, tws := paymentTypes(co.iso, c.business)
			pType := types[g.weighted(tws)]
			created := placed.Add(time.Duration(g.between(5, 240)) * time.Second)
			if g.chance(0.04) {
				paymentID++
				tPayments.add(paymentID, o.id, pType, total, "failed", ts(created), nil)
				created = created.Add(time.Duration(g.between(60, 1800)) * time.Second)
				if g.chance(0.4) {
					pType = types[g.weighted(tws)]
				}
			}
			pStatus := "completed"
			var settled time.Time
			switch pType {
			case "bank_transfer":
				settled = created.Add(time.Duration(g.between(20, 72)) * time.Hour)
			case "konbini":
				settled = created.Add(time.Duration(g.between(2, 48)) * time.Hour)
			default:
				settled = created.Add(time.Duration(g.between(1, 90)) * time.Second)
			}
			switch {
			case o.status == "cancelled" && g.chance(0.5):
				pStatus, settled = "failed", time.Time{}
			case o.status == "cancelled" || o.status == "returned":
				pStatus = "refunded"
			case o.status == "pending" || settled.After(endOfData):
				pStatus, settled = "pending", time.Time{}
			}
			paymentID++
			tPayments.add(paymentID, o.id, pType, total, pStatus, ts(created), nullableTime(settled, ts))

			// shipment
			if !shipped.IsZero() {
				shipmentID++
				si := shipperChoice(dest.region)
				status := "in_transit"
				switch o.status {
				case "delivered":
					status = "delivered"
				case "returned":
					status = "returned"
				}
				tShipments.add(shipmentID, o.id, si+1, fmt.Sprintf("%s%010d", shippers[si].prefix, g.r.Int64N(1e10)),
					status, ymd(shipped), nullableTime(delivered, ymd))
			}
			orders = append(orders, o)
		}
	}
	return orders
}

func nullableTime(t time.Time, f func(time.Time) string) any {
	if t.IsZero() {
		return nil
	}
	return f(t)
}

type review struct {
	product    int
	customer   int
	order      int
	rating     int
	title      any
	body       any
	lang       string
	created    time.Time
	helpful    int
	seq        int
	productCat int
}

func genReviews(g *gen, ds *dataset, products []*product, orders []*orderInfo) {
	langIdx := func(code string) int {
		for i, rt := range reviewText {
			if rt.lang == code {
				return i
			}
		}
		return 0
	}
	endOfData := lastDay.Add(24*time.Hour - time.Second)
	var rs []*review
	for _, o := range orders {
		if o.delivered.IsZero() {
			continue
		}
		p := 0.2
		if o.status == "returned" {
			p = 0.55
		}
		if !g.chance(p) {
			continue
		}
		n := 1
		if len(o.lines) > 1 && g.chance(0.15) {
			n = 2
		}
		perm := g.r.Perm(len(o.lines))[:n]
		co := countries[o.cust.country]
		for _, li := range perm {
			pr := products[o.lines[li]]
			created := o.delivered.AddDate(0, 0, g.between(1, 45)).Add(time.Duration(g.r.IntN(86400)) * time.Second)
			if created.After(endOfData) {
				continue
			}
			rating := int(math.Round(pr.quality + g.r.NormFloat64()*0.9))
			if o.status == "returned" {
				rating = g.between(1, 2)
			}
			rating = min(max(rating, 1), 5)
			sentiment := 2
			if rating <= 2 {
				sentiment = 0
			} else if rating == 3 {
				sentiment = 1
			}
			lang := co.loc.lang
			switch co.iso {
			case "CA":
				if g.chance(0.25) {
					lang = "fr"
				}
			case "AE":
				if g.chance(0.45) {
					lang = "en"
				}
			}
			if g.chance(0.12) {
				lang = "en" // plenty of people write in English anyway
			}
			rt := reviewText[langIdx(lang)]
			r := &review{product: pr.id, customer: o.cust.id, order: o.id, rating: rating, lang: rt.lang,
				created: created, seq: len(rs), productCat: pr.cat}
			if g.chance(0.04) {
				r.order = 0
			}
			if g.chance(0.7) {
				r.title = g.pick(rt.titles[sentiment])
			}
			if !g.chance(0.15) {
				pool := rt.body[sentiment]
				k := min(g.between(1, 3), len(pool))
				idx := g.r.Perm(len(pool))[:k]
				parts := make([]string, k)
				for i, j := range idx {
					parts[i] = strings.ReplaceAll(pool[j], "{p}", pr.name)
				}
				sep := " "
				if rt.lang == "ja" || rt.lang == "ko" {
					sep = ""
				}
				if rt.lang == "en" && k > 1 && g.chance(0.08) {
					sep = "\n\n"
				}
				r.body = strings.Join(parts, sep)
			}
			r.helpful = int(g.r.ExpFloat64() * 1.5)
			if g.chance(0.03) {
				r.helpful += g.between(5, 40)
			}
			rs = append(rs, r)
		}
	}
	slices.SortStableFunc(rs, func(a, b *review) int { return a.created.Compare(b.created) })

	// Plant the prompt-injection text in one English 5-star lighting review
	// in the middle of the table.
	lighting := slices.IndexFunc(categories, func(c category) bool { return c.name == "Lighting" })
	for i := len(rs) / 2; i < len(rs); i++ {
		r := rs[i]
		if r.lang == "en" && r.productCat == lighting && r.rating == 5 && r.body != nil {
			r.title = "Lovely lamp"
			r.body = "Lovely lamp, the light is warm and soft. " + injectionText
			break
		}
	}

	t := ds.table("reviews", "review_id", "product_id", "customer_id", "order_id", "rating", "title", "body",
		"language", "created_at", "helpful_votes")
	for i, r := range rs {
		t.add(i+1, r.product, r.customer, nullable(r.order), r.rating, r.title, r.body, r.lang, ts(r.created), r.helpful)
	}
}
