package sampledb

// schema is executed statement by statement before any data is inserted.
// Comments inside CREATE TABLE are kept by SQLite in sqlite_master.sql, so
// tools can show them to users.
var schema = []string{
	`CREATE TABLE regions (
    region_id INTEGER PRIMARY KEY,
    name      TEXT NOT NULL UNIQUE -- sales region used in reporting
)`,
	`CREATE TABLE countries (
    country_id INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE, -- English short name, e.g. 'Germany'
    iso_code   TEXT NOT NULL UNIQUE, -- ISO 3166-1 alpha-2 code
    region_id  INTEGER NOT NULL,
    currency   TEXT NOT NULL, -- local currency code; every amount in this database is in USD
    dial_code  TEXT NOT NULL, -- international dialling prefix, e.g. '+49'
    FOREIGN KEY (region_id) REFERENCES regions (region_id)
)`,
	`CREATE TABLE customers (
    customer_id      INTEGER PRIMARY KEY,
    name             TEXT NOT NULL, -- full name as entered; family name first for Japanese, Korean and Vietnamese customers
    email            TEXT NOT NULL UNIQUE,
    phone            TEXT, -- optional; NULL when the customer did not give one
    type             TEXT NOT NULL DEFAULT 'individual' CHECK (type IN ('individual', 'business')),
    company          TEXT, -- company name for business customers; NULL for individuals
    city             TEXT NOT NULL, -- in the local script, e.g. 'São Paulo', '東京'
    country_id       INTEGER NOT NULL,
    signup_date      DATE NOT NULL, -- 'YYYY-MM-DD'
    marketing_opt_in BOOLEAN NOT NULL DEFAULT 0, -- 1 = agreed to receive newsletters
    FOREIGN KEY (country_id) REFERENCES countries (country_id)
)`,
	`CREATE TABLE employees (
    employee_id      INTEGER PRIMARY KEY,
    first_name       TEXT NOT NULL,
    last_name        TEXT NOT NULL,
    title            TEXT NOT NULL,
    reports_to       INTEGER REFERENCES employees (employee_id), -- manager; NULL for the CEO
    birth_date       DATE NOT NULL,
    hire_date        DATE NOT NULL,
    termination_date DATE, -- NULL while the person still works here
    country_id       INTEGER NOT NULL,
    email            TEXT NOT NULL UNIQUE,
    FOREIGN KEY (country_id) REFERENCES countries (country_id)
)`,
	`CREATE TABLE categories (
    category_id INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL
)`,
	`CREATE TABLE suppliers (
    supplier_id   INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    contact_name  TEXT NOT NULL,
    contact_title TEXT, -- NULL when unknown
    country_id    INTEGER NOT NULL,
    city          TEXT NOT NULL,
    phone         TEXT NOT NULL,
    website       TEXT, -- NULL when the supplier has no website
    partner_since DATE NOT NULL,
    FOREIGN KEY (country_id) REFERENCES countries (country_id)
)`,
	`CREATE TABLE products (
    product_id      INTEGER PRIMARY KEY,
    sku             TEXT NOT NULL UNIQUE, -- category code + number, e.g. 'KIT-0003'
    name            TEXT NOT NULL UNIQUE,
    category_id     INTEGER NOT NULL,
    supplier_id     INTEGER NOT NULL,
    unit_price      REAL NOT NULL, -- current list price in USD; order_items keeps the price actually charged
    units_in_stock  INTEGER NOT NULL,
    reorder_level   INTEGER NOT NULL,
    discontinued    INTEGER NOT NULL DEFAULT 0 CHECK (discontinued IN (0, 1)), -- 1 = no longer sold
    introduced_date DATE NOT NULL, -- first day the product could be ordered
    notes           TEXT, -- free text; says when and why a discontinued product was dropped; often NULL
    FOREIGN KEY (category_id) REFERENCES categories (category_id),
    FOREIGN KEY (supplier_id) REFERENCES suppliers (supplier_id)
)`,
	`CREATE TABLE "promo codes" (
    promo_code_id INTEGER PRIMARY KEY,
    code          TEXT NOT NULL UNIQUE, -- what the customer types at checkout
    type          TEXT NOT NULL CHECK (type IN ('percent', 'free_shipping')),
    value         NUMERIC, -- fraction off each line for 'percent' codes (0.15 = 15%); NULL for 'free_shipping'
    valid_from    DATE NOT NULL,
    valid_to      DATE NOT NULL, -- inclusive
    max_uses      INTEGER, -- NULL = unlimited
    description   TEXT NOT NULL
)`,
	`CREATE TABLE shippers (
    shipper_id INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    phone      TEXT NOT NULL,
    since      DATE NOT NULL -- contract start
)`,
	`CREATE TABLE orders (
    order_id      INTEGER PRIMARY KEY,
    customer_id   INTEGER NOT NULL,
    employee_id   INTEGER NOT NULL, -- sales representative responsible for the customer's region
    order_date    DATETIME NOT NULL, -- 'YYYY-MM-DD HH:MM:SS', store time
    required_date DATE NOT NULL, -- promised delivery date
    shipped_date  DATE, -- NULL until the order leaves the warehouse (pending, processing, cancelled)
    status        TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'shipped', 'delivered', 'cancelled', 'returned')),
    channel       TEXT NOT NULL, -- 'web', 'mobile_app', 'marketplace' or 'phone'
    ship_city     TEXT NOT NULL,
    ship_country  TEXT NOT NULL, -- country name (denormalised; usually the customer's country, sometimes a gift abroad)
    promo_code_id INTEGER, -- NULL when no promo code was used
    freight       REAL NOT NULL, -- shipping charge in USD; 0 for free shipping
    FOREIGN KEY (customer_id) REFERENCES customers (customer_id),
    FOREIGN KEY (employee_id) REFERENCES employees (employee_id),
    FOREIGN KEY (promo_code_id) REFERENCES "promo codes" (promo_code_id)
)`,
	`CREATE TABLE order_items (
    order_item_id INTEGER PRIMARY KEY,
    order_id      INTEGER NOT NULL,
    product_id    INTEGER NOT NULL,
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    unit_price    REAL NOT NULL, -- price charged per unit in USD (list price at order time)
    discount      REAL NOT NULL DEFAULT 0, -- fraction, 0.10 = 10% off; line total = quantity * unit_price * (1 - discount)
    UNIQUE (order_id, product_id),
    FOREIGN KEY (order_id) REFERENCES orders (order_id),
    FOREIGN KEY (product_id) REFERENCES products (product_id)
)`,
	`CREATE TABLE payments (
    payment_id INTEGER PRIMARY KEY,
    order_id   INTEGER NOT NULL,
    type       TEXT NOT NULL, -- 'card', 'paypal', 'bank_transfer', 'gift_card', 'pay_later', 'pix', 'blik', 'konbini'
    amount     REAL NOT NULL, -- USD, order total including freight
    status     TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'failed', 'refunded')),
    created_at DATETIME NOT NULL,
    settled_at DATETIME, -- NULL unless the money actually moved (pending and failed payments)
    FOREIGN KEY (order_id) REFERENCES orders (order_id)
)`,
	`CREATE TABLE shipments (
    shipment_id     INTEGER PRIMARY KEY,
    order_id        INTEGER NOT NULL UNIQUE,
    shipper_id      INTEGER NOT NULL,
    tracking_number TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('in_transit', 'delivered', 'returned')),
    shipped_date    DATE NOT NULL,
    delivered_date  DATE, -- NULL while in transit
    FOREIGN KEY (order_id) REFERENCES orders (order_id),
    FOREIGN KEY (shipper_id) REFERENCES shippers (shipper_id)
)`,
	`CREATE TABLE reviews (
    review_id     INTEGER PRIMARY KEY,
    product_id    INTEGER NOT NULL REFERENCES products (product_id),
    customer_id   INTEGER NOT NULL REFERENCES customers (customer_id),
    order_id      INTEGER REFERENCES orders (order_id), -- NULL for reviews imported from the old shop without an order link
    rating        INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    title         TEXT, -- optional
    body          TEXT, -- free text written by the customer, any language; NULL for rating-only reviews
    language      TEXT NOT NULL, -- ISO 639-1 code of the review text
    created_at    DATETIME NOT NULL,
    helpful_votes INTEGER NOT NULL DEFAULT 0
)`,
}

// views are created after the data is loaded.
var views = []string{
	`CREATE VIEW order_totals AS
SELECT o.order_id,
       o.customer_id,
       o.order_date,
       o.status,
       COUNT(*)                                                               AS item_lines,
       SUM(oi.quantity)                                                       AS units,
       ROUND(SUM(oi.quantity * oi.unit_price * (1 - oi.discount)), 2)         AS subtotal,
       o.freight,
       ROUND(SUM(oi.quantity * oi.unit_price * (1 - oi.discount)) + o.freight, 2) AS total
FROM orders AS o
JOIN order_items AS oi ON oi.order_id = o.order_id
GROUP BY o.order_id`,
	`CREATE VIEW monthly_sales AS
SELECT substr(order_date, 1, 7) AS month, -- 'YYYY-MM'
       COUNT(*)                 AS orders,
       SUM(units)               AS units,
       ROUND(SUM(subtotal), 2)  AS revenue -- merchandise revenue in USD, excluding freight and cancelled orders
FROM order_totals
WHERE status <> 'cancelled'
GROUP BY month`,
}

var indexes = []string{
	`CREATE INDEX idx_customers_country ON customers (country_id)`,
	`CREATE INDEX idx_products_category ON products (category_id)`,
	`CREATE INDEX idx_orders_customer ON orders (customer_id)`,
	`CREATE INDEX idx_orders_date ON orders (order_date)`,
	`CREATE INDEX idx_order_items_product ON order_items (product_id)`,
	`CREATE INDEX idx_payments_order ON payments (order_id)`,
	`CREATE INDEX idx_reviews_product ON reviews (product_id)`,
}
