package evaldb

import (
	"fmt"
	"time"
)

// restaurant follows the habits of a point-of-sale export for a small
// restaurant group (the shape of Toast- or Square-style schemas): a mix of
// snake_case and abbreviated names (emp_id, first_nm, qty, tip_amt,
// resv_dt), a reference named for its role (orders.server_id →
// staff.emp_id), lower-case enums with underscores (dine_in, no_show), order
// times as 'YYYY-MM-DD HH:MM:SS' text, reservation days as dates with
// 'HH:MM' times beside them, money as REAL, 0/1 flags (is_veg, comped,
// active), nullable closed_at, server_id, tip_amt, left_on and closed_on,
// a restaurant that has closed and one with no inspections yet. The
// snapshot is 2025-09-30.
var restaurantSchema = []string{
	`CREATE TABLE restaurants (
  restaurant_id INTEGER NOT NULL PRIMARY KEY,
  name          TEXT    NOT NULL UNIQUE,
  neighborhood  TEXT    NOT NULL,
  city          TEXT    NOT NULL,
  cuisine       TEXT    NOT NULL,
  seats         INTEGER NOT NULL,
  opened_on     DATE    NOT NULL,
  closed_on     DATE -- NULL while open
)`,
	`CREATE TABLE menu_items (
  item_id       INTEGER NOT NULL PRIMARY KEY,
  restaurant_id INTEGER NOT NULL REFERENCES restaurants (restaurant_id),
  item_name     TEXT    NOT NULL,
  category      TEXT    NOT NULL, -- starter, main, side, dessert, drink
  price         REAL    NOT NULL,
  is_veg        INTEGER NOT NULL, -- 0/1 vegetarian
  active        INTEGER NOT NULL  -- 0/1 still on the menu
)`,
	`CREATE TABLE staff (
  emp_id        INTEGER NOT NULL PRIMARY KEY,
  restaurant_id INTEGER NOT NULL REFERENCES restaurants (restaurant_id),
  first_nm      TEXT    NOT NULL,
  last_nm       TEXT    NOT NULL,
  role          TEXT    NOT NULL, -- server, cook, host, bartender, dishwasher, manager
  hourly_rate   REAL    NOT NULL,
  hired_on      DATE    NOT NULL,
  left_on       DATE -- NULL while employed
)`,
	`CREATE TABLE shifts (
  shift_id   INTEGER NOT NULL PRIMARY KEY,
  emp_id     INTEGER NOT NULL REFERENCES staff (emp_id),
  shift_date DATE    NOT NULL,
  clock_in   TEXT    NOT NULL, -- HH:MM
  clock_out  TEXT    NOT NULL, -- HH:MM
  hours      REAL    NOT NULL
)`,
	`CREATE TABLE orders (
  order_id      INTEGER NOT NULL PRIMARY KEY,
  restaurant_id INTEGER NOT NULL REFERENCES restaurants (restaurant_id),
  server_id     INTEGER REFERENCES staff (emp_id), -- NULL for takeout and delivery
  order_type    TEXT    NOT NULL, -- dine_in, takeout, delivery
  status        TEXT    NOT NULL, -- closed, voided, open
  opened_at     TEXT    NOT NULL, -- YYYY-MM-DD HH:MM:SS
  closed_at     TEXT,
  guests        INTEGER,          -- party size, dine-in only
  subtotal      REAL    NOT NULL,
  tax_amt       REAL    NOT NULL,
  tip_amt       REAL
)`,
	`CREATE TABLE order_lines (
  line_id    INTEGER NOT NULL PRIMARY KEY,
  order_id   INTEGER NOT NULL REFERENCES orders (order_id),
  item_id    INTEGER NOT NULL REFERENCES menu_items (item_id),
  qty        INTEGER NOT NULL,
  unit_price REAL    NOT NULL,
  comped     INTEGER NOT NULL -- 0/1 given free
)`,
	`CREATE TABLE reservations (
  resv_id       INTEGER NOT NULL PRIMARY KEY,
  restaurant_id INTEGER NOT NULL REFERENCES restaurants (restaurant_id),
  guest_name    TEXT    NOT NULL,
  party_size    INTEGER NOT NULL,
  resv_dt       DATE    NOT NULL,
  resv_time     TEXT    NOT NULL, -- HH:MM
  status        TEXT    NOT NULL, -- booked, seated, cancelled, no_show
  booked_via    TEXT    NOT NULL  -- phone, website, app
)`,
	`CREATE TABLE inspections (
  inspection_id   INTEGER NOT NULL PRIMARY KEY,
  restaurant_id   INTEGER NOT NULL REFERENCES restaurants (restaurant_id),
  inspection_date DATE    NOT NULL,
  score           INTEGER NOT NULL, -- 0-100
  grade           TEXT    NOT NULL, -- A, B, C
  violations      INTEGER NOT NULL,
  inspector       TEXT    NOT NULL
)`,
	`CREATE INDEX orders_restaurant ON orders (restaurant_id)`,
	`CREATE INDEX lines_order ON order_lines (order_id)`,
	`CREATE INDEX shifts_emp ON shifts (emp_id)`,
}

type restMenu struct {
	name, cat string
	price     float64
	veg       int
}

var (
	restPlaces = []struct {
		name, hood, city, cuisine string
		seats                     int
		opened, closed            time.Time
		weight                    int
	}{
		{"Trattoria Lucia", "North End", "Boston", "Italian", 64, date(2016, 5, 12), time.Time{}, 16},
		{"Sakura House", "Back Bay", "Boston", "Japanese", 48, date(2018, 2, 1), time.Time{}, 13},
		{"El Fogon", "Mission", "San Francisco", "Mexican", 72, date(2015, 8, 20), time.Time{}, 18},
		{"The Copper Pot", "Hayes Valley", "San Francisco", "American", 90, date(2019, 11, 4), time.Time{}, 17},
		{"Spice Route", "Fremont", "Seattle", "Indian", 56, date(2020, 9, 15), time.Time{}, 12},
		{"Le Petit Jardin", "Capitol Hill", "Seattle", "French", 40, date(2017, 3, 9), time.Time{}, 8},
		{"Golden Dragon", "Chinatown", "Boston", "Chinese", 110, date(2012, 1, 16), date(2024, 12, 31), 10},
		{"Olive & Vine", "Ballard", "Seattle", "Greek", 52, date(2025, 4, 1), time.Time{}, 6},
	}
	restMenus = map[string][]restMenu{
		"Italian": {{"Bruschetta", "starter", 9, 1}, {"Burrata", "starter", 14, 1}, {"Calamari Fritti", "starter", 15, 0},
			{"Spaghetti Carbonara", "main", 22, 0}, {"Margherita Pizza", "main", 18, 1}, {"Lasagna", "main", 24, 0},
			{"Risotto ai Funghi", "main", 23, 1}, {"Osso Buco", "main", 36, 0}, {"Tiramisu", "dessert", 10, 1},
			{"Panna Cotta", "dessert", 9, 1}, {"Focaccia", "side", 6, 1}, {"Chianti (glass)", "drink", 13, 1},
			{"San Pellegrino", "drink", 5, 1}, {"Espresso", "drink", 4, 1}},
		"Japanese": {{"Edamame", "starter", 6, 1}, {"Gyoza", "starter", 9, 0}, {"Miso Soup", "starter", 5, 1},
			{"Salmon Nigiri", "main", 16, 0}, {"Tonkotsu Ramen", "main", 19, 0}, {"Chicken Katsu", "main", 21, 0},
			{"Vegetable Tempura", "main", 17, 1}, {"Omakase", "main", 85, 0}, {"Mochi", "dessert", 8, 1},
			{"Steamed Rice", "side", 3, 1}, {"Sake (carafe)", "drink", 18, 1}, {"Green Tea", "drink", 4, 1}},
		"Mexican": {{"Guacamole", "starter", 11, 1}, {"Elote", "starter", 7, 1}, {"Tacos al Pastor", "main", 16, 0},
			{"Carne Asada", "main", 26, 0}, {"Chicken Enchiladas", "main", 19, 0}, {"Bean Burrito", "main", 14, 1},
			{"Churros", "dessert", 8, 1}, {"Flan", "dessert", 7, 1}, {"Rice and Beans", "side", 5, 1},
			{"Margarita", "drink", 12, 1}, {"Horchata", "drink", 5, 1}},
		"American": {{"Wings", "starter", 13, 0}, {"Loaded Fries", "starter", 10, 0}, {"Cheeseburger", "main", 18, 0},
			{"Ribeye Steak", "main", 42, 0}, {"Mac and Cheese", "main", 16, 1}, {"Fried Chicken", "main", 22, 0},
			{"Cobb Salad", "main", 15, 0}, {"Apple Pie", "dessert", 9, 1}, {"Brownie Sundae", "dessert", 10, 1},
			{"Coleslaw", "side", 4, 1}, {"Draft IPA", "drink", 8, 1}, {"Lemonade", "drink", 4, 1}},
		"Indian": {{"Samosa", "starter", 7, 1}, {"Pakora", "starter", 8, 1}, {"Chicken Tikka Masala", "main", 21, 0},
			{"Lamb Rogan Josh", "main", 25, 0}, {"Palak Paneer", "main", 18, 1}, {"Chana Masala", "main", 16, 1},
			{"Gulab Jamun", "dessert", 7, 1}, {"Garlic Naan", "side", 4, 1}, {"Basmati Rice", "side", 4, 1},
			{"Mango Lassi", "drink", 6, 1}, {"Masala Chai", "drink", 4, 1}},
		"French": {{"French Onion Soup", "starter", 12, 1}, {"Escargots", "starter", 16, 0},
			{"Coq au Vin", "main", 32, 0}, {"Duck Confit", "main", 34, 0}, {"Ratatouille", "main", 24, 1},
			{"Steak Frites", "main", 38, 0}, {"Creme Brulee", "dessert", 11, 1}, {"Tarte Tatin", "dessert", 12, 1},
			{"Pommes Frites", "side", 7, 1}, {"Bordeaux (glass)", "drink", 15, 1}, {"Cafe au Lait", "drink", 5, 1}},
		"Chinese": {{"Spring Rolls", "starter", 7, 1}, {"Hot and Sour Soup", "starter", 6, 0},
			{"Kung Pao Chicken", "main", 17, 0}, {"Peking Duck", "main", 48, 0}, {"Mapo Tofu", "main", 15, 1},
			{"Beef Chow Fun", "main", 18, 0}, {"Sesame Balls", "dessert", 6, 1}, {"Fried Rice", "side", 9, 0},
			{"Jasmine Tea", "drink", 3, 1}, {"Tsingtao", "drink", 6, 1}},
		"Greek": {{"Spanakopita", "starter", 10, 1}, {"Tzatziki", "starter", 8, 1}, {"Moussaka", "main", 24, 0},
			{"Lamb Souvlaki", "main", 26, 0}, {"Grilled Octopus", "main", 29, 0}, {"Gemista", "main", 20, 1},
			{"Baklava", "dessert", 9, 1}, {"Greek Salad", "side", 11, 1}, {"Assyrtiko (glass)", "drink", 14, 1},
			{"Frappe", "drink", 5, 1}},
	}
	restInspectors = []string{"M. Alvarez", "J. Okonkwo", "S. Lindqvist", "R. Patel", "D. Moreau"}
	restSnapshot   = date(2025, 9, 30)
)

func buildRestaurant(b *builder) {
	r := newRNG(8812)
	b.exec(restaurantSchema...)
	placeW := make([]int, len(restPlaces))
	for i, p := range restPlaces {
		var closed any
		if !p.closed.IsZero() {
			closed = isoDate(p.closed)
		}
		b.insert("restaurants", i+1, p.name, p.hood, p.city, p.cuisine, p.seats, isoDate(p.opened), closed)
		placeW[i] = p.weight
	}

	// Menus: each restaurant's cuisine list; a few dishes retired.
	type dish struct {
		id    int
		cat   string
		price float64
		pop   int
	}
	menus := make([][]dish, len(restPlaces))
	itemID := 0
	for i, p := range restPlaces {
		for _, m := range restMenus[p.cuisine] {
			itemID++
			price := m.price
			if p.city == "San Francisco" {
				price += 2
			}
			active := 1
			if r.chance(0.08) {
				active = 0
			}
			b.insert("menu_items", itemID, i+1, m.name, m.cat, price, m.veg, active)
			menus[i] = append(menus[i], dish{id: itemID, cat: m.cat, price: price, pop: 1 + r.IntN(9)})
		}
	}

	// Staff.
	roles := []string{"server", "cook", "host", "bartender", "dishwasher", "manager"}
	roleN := []int{7, 5, 2, 2, 2, 1}
	roleRate := []float64{15.5, 21, 16, 17, 15, 32}
	type emp struct {
		id, place, role int
		hired, left     time.Time
	}
	var staff []emp
	servers := make([][]int, len(restPlaces))
	for i, p := range restPlaces {
		for ro, n := range roleN {
			n += r.IntN(2)
			for range n {
				_, first, last := r.person(0.5)
				end := restSnapshot
				if !p.closed.IsZero() {
					end = p.closed
				}
				hired := r.randomDay(p.opened, days(end, -60))
				e := emp{id: len(staff) + 1, place: i, role: ro, hired: hired}
				var left any
				if !p.closed.IsZero() || r.chance(0.22) {
					if l := r.randomDay(days(hired, 45), end); !l.After(end) && l.After(hired) {
						e.left = l
						left = isoDate(l)
					}
				}
				staff = append(staff, e)
				if ro == 0 {
					servers[i] = append(servers[i], len(staff)-1)
				}
				rate := money(roleRate[ro] + r.Float64()*4)
				b.insert("staff", e.id, i+1, first, last, roles[ro], rate, isoDate(hired), left)
			}
		}
	}

	// Shifts: the last eight weeks of the snapshot (or of a closed place),
	// a few shifts a week per employed person.
	shiftID := 0
	for _, e := range staff {
		end := restSnapshot
		if p := restPlaces[e.place]; !p.closed.IsZero() {
			end = p.closed
		}
		for d := days(end, -55); !d.After(end); d = days(d, 1) {
			if d.Before(e.hired) || (!e.left.IsZero() && !d.Before(e.left)) || !r.chance(0.55) {
				continue
			}
			start := r.between(9, 17)
			length := r.between(4, 9)
			inMin := []int{0, 15, 30, 45}[r.IntN(4)]
			shiftID++
			b.insert("shifts", shiftID, e.id, isoDate(d), fmt.Sprintf("%02d:%02d", start, inMin),
				fmt.Sprintf("%02d:%02d", (start+length)%24, inMin), float64(length))
		}
	}

	// Orders 2024-01-01 … 2025-09-30.
	types := []string{"dine_in", "takeout", "delivery"}
	lineID := 0
	for i := range 7000 {
		pl := r.weighted(placeW)
		p := restPlaces[pl]
		from, to := date(2024, 1, 1), restSnapshot
		if p.opened.After(from) {
			from = p.opened
		}
		if !p.closed.IsZero() {
			to = p.closed
		}
		day := r.randomDay(from, to)
		hour := pick(r, []int{11, 12, 12, 13, 17, 18, 18, 19, 19, 20, 21})
		opened := day.Add(time.Duration(hour*60+r.IntN(60))*time.Minute + time.Duration(r.IntN(60))*time.Second)
		ty := r.weighted([]int{62, 23, 15})
		status := "closed"
		if r.chance(0.025) {
			status = "voided"
		}
		if day.Equal(restSnapshot) && hour >= 19 {
			status = "open"
		}
		var server, guests, closedAt, tip any
		if ty == 0 {
			guests = 1 + r.weighted([]int{18, 40, 14, 18, 5, 5})
			var on []int
			for _, s := range servers[pl] {
				e := staff[s]
				if !e.hired.After(day) && (e.left.IsZero() || e.left.After(day)) {
					on = append(on, s)
				}
			}
			if len(on) > 0 {
				server = staff[on[r.IntN(len(on))]].id
			}
		}
		nLines := 1 + r.IntN(3)
		if g, ok := guests.(int); ok {
			nLines = g + r.IntN(g+1)
		}
		menu := menus[pl]
		popW := make([]int, len(menu))
		for k, d := range menu {
			popW[k] = d.pop
		}
		sub := 0.0
		var lines [][]any
		for range nLines {
			d := menu[r.weighted(popW)]
			qty := 1 + r.weighted([]int{80, 15, 5})
			comped := 0
			if r.chance(0.02) {
				comped = 1
			} else {
				sub += float64(qty) * d.price
			}
			lineID++
			lines = append(lines, []any{lineID, i + 1, d.id, qty, d.price, comped})
		}
		sub = money(sub)
		if status == "closed" {
			closedAt = isoDateTime(opened.Add(time.Duration(r.between(12, 110)) * time.Minute))
			if ty == 0 || ty == 2 || r.chance(0.3) {
				if !r.chance(0.06) {
					tip = money(sub * (0.1 + 0.12*r.Float64()))
				}
			}
		}
		if status == "voided" {
			closedAt = isoDateTime(opened.Add(time.Duration(r.between(2, 15)) * time.Minute))
		}
		b.insert("orders", i+1, pl+1, server, types[ty], status, isoDateTime(opened), closedAt, guests, sub,
			money(sub*0.0825), tip)
		for _, l := range lines {
			b.insert("order_lines", l...)
		}
	}

	// Reservations: booked until the snapshot and up to three weeks after.
	via := []string{"phone", "website", "app"}
	for i := range 2600 {
		pl := r.weighted(placeW)
		p := restPlaces[pl]
		from, to := date(2024, 1, 1), days(restSnapshot, 21)
		if p.opened.After(from) {
			from = p.opened
		}
		if !p.closed.IsZero() {
			to = p.closed
		}
		day := r.randomDay(from, to)
		status := "seated"
		switch {
		case day.After(restSnapshot):
			status = "booked"
			if r.chance(0.08) {
				status = "cancelled"
			}
		case r.chance(0.11):
			status = "cancelled"
		case r.chance(0.06):
			status = "no_show"
		}
		_, first, last := r.person(0.5)
		size := 2 + r.weighted([]int{45, 10, 25, 6, 8, 3, 2, 1})
		t := fmt.Sprintf("%02d:%s", pick(r, []int{12, 13, 17, 18, 19, 19, 20, 20, 21}), pick(r, []string{"00", "15", "30", "45"}))
		b.insert("reservations", i+1, pl+1, first+" "+last, size, isoDate(day), t, status, via[r.weighted([]int{30, 45, 25})])
	}

	// Inspections: about two a year per open restaurant; none yet for the
	// newest.
	insID := 0
	for i, p := range restPlaces {
		if p.opened.After(date(2025, 1, 1)) {
			continue
		}
		end := restSnapshot
		if !p.closed.IsZero() {
			end = p.closed
		}
		start := p.opened
		if start.Before(date(2021, 1, 1)) {
			start = date(2021, 1, 1)
		}
		base := 80 + r.IntN(16)
		if p.cuisine == "Chinese" {
			base = 74
		}
		for d := days(start, r.between(30, 150)); !d.After(end); d = days(d, r.between(150, 220)) {
			score := min(100, max(55, base+r.between(-12, 8)))
			grade := "A"
			switch {
			case score < 70:
				grade = "C"
			case score < 85:
				grade = "B"
			}
			insID++
			b.insert("inspections", insID, i+1, isoDate(d), score, grade, max(0, (100-score)/4+r.between(-1, 2)),
				pick(r, restInspectors))
		}
	}
}
